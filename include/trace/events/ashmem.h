/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ashmem events: what userspace pins and unpins, and what reclaim and
 * ASHMEM_PURGE_ALL_CACHES purge.  An area is named by the inode number of
 * its backing file, as in its fdinfo and ASHMEM_GET_FILE_ID; page ranges
 * are inclusive page offsets into the area.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ashmem

#if !defined(_TRACE_ASHMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ASHMEM_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(ashmem_pin_class,
		    TP_PROTO(unsigned long ino, pgoff_t first, pgoff_t last,
			     int ret),
		    TP_ARGS(ino, first, last, ret),
		    TP_STRUCT__entry(__field(unsigned long, ino)
				     __field(pgoff_t, first)
				     __field(pgoff_t, last)
				     __field(int, ret)),
		    TP_fast_assign(__entry->ino = ino;
				   __entry->first = first;
				   __entry->last = last;
				   __entry->ret = ret;),
		    TP_printk("ino=%lu first=%lu last=%lu ret=%d",
			      __entry->ino, __entry->first, __entry->last,
			      __entry->ret)
);

/* ret: ASHMEM_NOT_PURGED, ASHMEM_WAS_PURGED or a negative errno. */
DEFINE_EVENT(ashmem_pin_class, ashmem_pin,
	     TP_PROTO(unsigned long ino, pgoff_t first, pgoff_t last, int ret),
	     TP_ARGS(ino, first, last, ret)
);

/* ret: 0 or a negative errno. */
DEFINE_EVENT(ashmem_pin_class, ashmem_unpin,
	     TP_PROTO(unsigned long ino, pgoff_t first, pgoff_t last, int ret),
	     TP_ARGS(ino, first, last, ret)
);

/* A range purged; freed: the pages of it that were resident. */
TRACE_EVENT(ashmem_purge,
	    TP_PROTO(unsigned long ino, pgoff_t first, pgoff_t last,
		     unsigned long freed),
	    TP_ARGS(ino, first, last, freed),
	    TP_STRUCT__entry(__field(unsigned long, ino)
			     __field(pgoff_t, first)
			     __field(pgoff_t, last)
			     __field(unsigned long, freed)),
	    TP_fast_assign(__entry->ino = ino;
			   __entry->first = first;
			   __entry->last = last;
			   __entry->freed = freed;),
	    TP_printk("ino=%lu first=%lu last=%lu freed=%lu",
		      __entry->ino, __entry->first, __entry->last,
		      __entry->freed)
);

/*
 * One scan of the shrinker: the pages reclaim asked for and the unpinned
 * pages purged, from the list of the memory cgroup with inode number
 * memcg (0 without memory cgroups).
 */
TRACE_EVENT(ashmem_shrink,
	    TP_PROTO(unsigned long memcg, unsigned long requested,
		     unsigned long freed),
	    TP_ARGS(memcg, requested, freed),
	    TP_STRUCT__entry(__field(unsigned long, memcg)
			     __field(unsigned long, requested)
			     __field(unsigned long, freed)),
	    TP_fast_assign(__entry->memcg = memcg;
			   __entry->requested = requested;
			   __entry->freed = freed;),
	    TP_printk("memcg=%lu requested=%lu freed=%lu",
		      __entry->memcg, __entry->requested, __entry->freed)
);

#endif /* _TRACE_ASHMEM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
