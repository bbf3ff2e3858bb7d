// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the page ranges of ashmem: pin, unpin, the LRU and purging.
 * Included from mm/ashmem.c to reach its static functions.
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched/signal.h>

#define ASHMEM_TEST_PAGES	16

static void ashmem_test_area_destroy(void *asma)
{
	ashmem_area_destroy(asma);
}

/* An area of @pages pages, as after SET_SIZE. */
static struct ashmem_area *ashmem_test_area_unmapped(struct kunit *test,
						     pgoff_t pages)
{
	struct ashmem_area *asma;
	int ret;

	asma = ashmem_area_create();
	KUNIT_ASSERT_NOT_NULL(test, asma);
	ret = kunit_add_action_or_reset(test, ashmem_test_area_destroy, asma);
	KUNIT_ASSERT_EQ(test, ret, 0);
	asma->size = pages << PAGE_SHIFT;
	return asma;
}

/* Give @asma its backing file, as its first mmap does. */
static void ashmem_test_map(struct kunit *test, struct ashmem_area *asma)
{
	int ret;

	mutex_lock(&asma->lock);
	ret = ashmem_create_backing(asma, mk_vma_flags(VMA_NORESERVE_BIT));
	mutex_unlock(&asma->lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/* An area of @pages pages with its backing file, as after the first mmap. */
static struct ashmem_area *ashmem_test_area(struct kunit *test, pgoff_t pages)
{
	struct ashmem_area *asma = ashmem_test_area_unmapped(test, pages);

	ashmem_test_map(test, asma);
	return asma;
}

/* An area whose @pages pages are all in memory. */
static struct ashmem_area *ashmem_test_area_resident(struct kunit *test,
						     pgoff_t pages)
{
	struct ashmem_area *asma = ashmem_test_area(test, pages);
	pgoff_t index;

	for (index = 0; index < pages; index++) {
		struct folio *folio = shmem_read_folio(asma->file->f_mapping,
						       index);

		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		folio_put(folio);
	}
	return asma;
}

static int ashmem_test_pin(struct ashmem_area *asma, pgoff_t first,
			   pgoff_t last)
{
	return ashmem_pin_pages(asma, first, last);
}

static int ashmem_test_unpin(struct ashmem_area *asma, pgoff_t first,
			     pgoff_t last)
{
	return ashmem_unpin_pages(asma, first, last);
}

static int ashmem_test_status(struct ashmem_area *asma, pgoff_t first,
			      pgoff_t last)
{
	guard(mutex)(&asma->lock);
	return ashmem_get_pin_status_locked(asma, first, last);
}

/* The pages the shrinker reports, as global reclaim asks for them. */
static long ashmem_test_lru_pages(void)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	unsigned long pages = ashmem_shrink_count(ashmem_shrinker, &sc);

	return pages == SHRINK_EMPTY ? 0 : pages;
}

/* Purge as PURGE_ALL_CACHES does, but only @target pages. */
static unsigned long ashmem_test_purge(unsigned long target)
{
	struct ashmem_purge purge = {
		.target = target,
		.nid = NUMA_NO_NODE,
	};

	ashmem_purge(&purge, ashmem_purge_walk_all, 1);
	return purge.purged;
}

/*
 * The ranges of @asma written as "[first-last]" for a resident range and
 * "[first-last]P" for a purged one, e.g. "[0-1][4-7]P".
 */
static const char *ashmem_test_ranges(struct kunit *test,
				      struct ashmem_area *asma)
{
	struct ashmem_range *range;
	struct rb_node *node;
	char *buf, *pos;
	size_t room = 512;

	buf = kunit_kzalloc(test, room, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	pos = buf;

	guard(mutex)(&asma->lock);
	for (node = rb_first(&asma->ranges); node; node = rb_next(node)) {
		int len;

		range = rb_entry(node, struct ashmem_range, node);
		len = scnprintf(pos, room, "[%lu-%lu]%s", range->first,
				range->last, range->purged ? "P" : "");
		pos += len;
		room -= len;
	}
	return buf;
}

/**
 * struct ashmem_ops_case - a sequence of pin operations and what follows
 * @desc: the name of the case
 * @ops: "u" unpin, "p" pin, "P" purge all; each with pages [first, last]
 * @nr_ops: number of entries in @ops
 * @ret: the return value of the last operation
 * @ranges: the ranges afterwards, as ashmem_test_ranges() writes them
 */
struct ashmem_ops_case {
	const char *desc;
	struct {
		char op;
		pgoff_t first;
		pgoff_t last;
	} ops[4];
	int nr_ops;
	int ret;
	const char *ranges;
};

static const struct ashmem_ops_case ashmem_ops_cases[] = {
	{ "unpin_one_range", { { 'u', 2, 5 } }, 1, 0, "[2-5]" },
	{ "unpin_inside_range", { { 'u', 2, 9 }, { 'u', 4, 5 } }, 2, 0,
	  "[2-9]" },
	{ "unpin_subsumes_range", { { 'u', 4, 5 }, { 'u', 2, 9 } }, 2, 0,
	  "[2-9]" },
	{ "unpin_overlaps_front", { { 'u', 4, 9 }, { 'u', 2, 5 } }, 2, 0,
	  "[2-9]" },
	{ "unpin_overlaps_back", { { 'u', 2, 5 }, { 'u', 4, 9 } }, 2, 0,
	  "[2-9]" },
	{ "unpin_merges_neighbours",
	  { { 'u', 0, 1 }, { 'u', 4, 5 }, { 'u', 2, 3 } }, 3, 0, "[0-5]" },
	{ "unpin_merges_across_ranges",
	  { { 'u', 1, 1 }, { 'u', 3, 3 }, { 'u', 5, 5 }, { 'u', 0, 6 } }, 4,
	  0, "[0-6]" },
	{ "unpin_keeps_gap", { { 'u', 0, 1 }, { 'u', 3, 4 } }, 2, 0,
	  "[0-1][3-4]" },
	{ "unpin_around_purged",
	  { { 'u', 4, 5 }, { 'P' }, { 'u', 2, 9 } }, 3, 0, "[2-3][4-5]P[6-9]" },
	{ "unpin_inside_purged",
	  { { 'u', 2, 9 }, { 'P' }, { 'u', 4, 5 } }, 3, 0, "[2-9]P" },
	{ "pin_subsumes_range", { { 'u', 4, 5 }, { 'p', 2, 9 } }, 2,
	  ASHMEM_NOT_PURGED, "" },
	{ "pin_overlaps_front", { { 'u', 4, 9 }, { 'p', 2, 5 } }, 2,
	  ASHMEM_NOT_PURGED, "[6-9]" },
	{ "pin_overlaps_back", { { 'u', 2, 5 }, { 'p', 4, 9 } }, 2,
	  ASHMEM_NOT_PURGED, "[2-3]" },
	{ "pin_splits_range", { { 'u', 2, 9 }, { 'p', 4, 5 } }, 2,
	  ASHMEM_NOT_PURGED, "[2-3][6-9]" },
	{ "pin_spans_ranges",
	  { { 'u', 0, 2 }, { 'u', 5, 6 }, { 'u', 9, 12 }, { 'p', 1, 10 } }, 4,
	  ASHMEM_NOT_PURGED, "[0-0][11-12]" },
	{ "pin_pinned_pages", { { 'u', 2, 3 }, { 'p', 6, 9 } }, 2,
	  ASHMEM_NOT_PURGED, "[2-3]" },
	{ "pin_splits_purged",
	  { { 'u', 2, 9 }, { 'P' }, { 'p', 4, 5 } }, 3, ASHMEM_WAS_PURGED,
	  "[2-3]P[6-9]P" },
	{ "pin_touches_purged",
	  { { 'u', 2, 3 }, { 'P' }, { 'u', 6, 7 }, { 'p', 3, 6 } }, 4,
	  ASHMEM_WAS_PURGED, "[2-2]P[7-7]" },
	{ "pin_misses_purged",
	  { { 'u', 2, 3 }, { 'P' }, { 'u', 6, 7 }, { 'p', 4, 7 } }, 4,
	  ASHMEM_NOT_PURGED, "[2-3]P" },
	{ "pin_whole_area", { { 'u', 0, 15 }, { 'p', 0, 15 } }, 2,
	  ASHMEM_NOT_PURGED, "" },
	{ "purge_merges_with_purged",
	  { { 'u', 0, 1 }, { 'P' }, { 'u', 2, 3 }, { 'P' } }, 4, 0, "[0-3]P" },
	{ "purge_merges_both_sides",
	  { { 'u', 0, 1 }, { 'u', 4, 5 }, { 'P' }, { 'u', 2, 3 } }, 4, 0,
	  "[0-1]P[2-3][4-5]P" },
};

static void ashmem_ops_case_desc(const struct ashmem_ops_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ashmem_ops, ashmem_ops_cases, ashmem_ops_case_desc);

static void ashmem_pin_unpin_sequence(struct kunit *test)
{
	const struct ashmem_ops_case *c = test->param_value;
	struct ashmem_area *asma = ashmem_test_area(test, ASHMEM_TEST_PAGES);
	int i, ret = 0;

	for (i = 0; i < c->nr_ops; i++) {
		switch (c->ops[i].op) {
		case 'u':
			ret = ashmem_test_unpin(asma, c->ops[i].first,
						c->ops[i].last);
			break;
		case 'p':
			ret = ashmem_test_pin(asma, c->ops[i].first,
					      c->ops[i].last);
			break;
		case 'P':
			ashmem_test_purge(ULONG_MAX);
			ret = 0;
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, asma), c->ranges);
}

/**
 * struct ashmem_bounds_case - an &struct ashmem_pin and the pages it names
 * @desc: the name of the case
 * @pin: offset and length in bytes, in pages of the test
 * @ret: 0 or the error ashmem_pin_check() or ashmem_pin_range() returns
 * @first: the first page named
 * @last: the last page named
 */
struct ashmem_bounds_case {
	const char *desc;
	struct ashmem_pin pin;
	int ret;
	pgoff_t first;
	pgoff_t last;
};

#define P(n)	((n) * PAGE_SIZE)

static const struct ashmem_bounds_case ashmem_bounds_cases[] = {
	{ "one_page", { P(3), P(1) }, 0, 3, 3 },
	{ "whole_area", { 0, P(ASHMEM_TEST_PAGES) }, 0, 0,
	  ASHMEM_TEST_PAGES - 1 },
	{ "len_0_is_to_end", { P(5), 0 }, 0, 5, ASHMEM_TEST_PAGES - 1 },
	{ "len_0_from_start", { 0, 0 }, 0, 0, ASHMEM_TEST_PAGES - 1 },
	{ "len_0_at_end", { P(ASHMEM_TEST_PAGES), 0 }, -EINVAL },
	{ "offset_unaligned", { 1, P(1) }, -EINVAL },
	{ "len_unaligned", { 0, P(1) + 1 }, -EINVAL },
	{ "past_end", { P(ASHMEM_TEST_PAGES - 1), P(2) }, -EINVAL },
	{ "offset_past_end", { P(ASHMEM_TEST_PAGES + 1), P(1) }, -EINVAL },
	{ "u32_overflow", { P(4), 0U - (u32)P(1) }, -EINVAL },
	{ "u32_max_len", { 0, 0U - (u32)PAGE_SIZE }, -EINVAL },
};

#undef P

static void ashmem_bounds_case_desc(const struct ashmem_bounds_case *c,
				    char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ashmem_bounds, ashmem_bounds_cases, ashmem_bounds_case_desc);

static void ashmem_pin_range_bounds(struct kunit *test)
{
	const struct ashmem_bounds_case *c = test->param_value;
	struct ashmem_area *asma = ashmem_test_area(test, ASHMEM_TEST_PAGES);
	pgoff_t first = ULONG_MAX, last = ULONG_MAX;
	int ret;

	mutex_lock(&asma->lock);
	ret = ashmem_pin_check(&c->pin) ?:
	      ashmem_pin_range(asma, &c->pin, &first, &last);
	mutex_unlock(&asma->lock);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (!c->ret) {
		KUNIT_EXPECT_EQ(test, first, c->first);
		KUNIT_EXPECT_EQ(test, last, c->last);
	}
}

static void ashmem_pin_range_before_mmap(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area_unmapped(test, 1);
	struct ashmem_pin pin = { 0, PAGE_SIZE };
	pgoff_t first, last;

	mutex_lock(&asma->lock);
	KUNIT_EXPECT_EQ(test, ashmem_pin_range(asma, &pin, &first, &last),
			-EINVAL);
	mutex_unlock(&asma->lock);
}

static void ashmem_status_reports_any_unpinned(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area(test, ASHMEM_TEST_PAGES);

	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 0, 15),
			ASHMEM_IS_PINNED);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 7, 7), 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 0, 15),
			ASHMEM_IS_UNPINNED);
	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 7, 7),
			ASHMEM_IS_UNPINNED);
	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 0, 6),
			ASHMEM_IS_PINNED);
	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 8, 15),
			ASHMEM_IS_PINNED);
	ashmem_test_purge(ULONG_MAX);
	KUNIT_EXPECT_EQ(test, ashmem_test_status(asma, 6, 8),
			ASHMEM_IS_UNPINNED);
}

static void ashmem_pages_counted(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area(test, ASHMEM_TEST_PAGES);
	struct ashmem_area *b = ashmem_test_area(test, ASHMEM_TEST_PAGES);
	long before = ashmem_test_lru_pages();

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(a, 0, 3), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(b, 8, 15), 0);
	KUNIT_EXPECT_EQ(test, a->unpinned_pages, 4);
	KUNIT_EXPECT_EQ(test, b->unpinned_pages, 8);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), before + 12);

	KUNIT_ASSERT_EQ(test, ashmem_test_pin(b, 10, 11), ASHMEM_NOT_PURGED);
	KUNIT_EXPECT_EQ(test, b->unpinned_pages, 6);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), before + 10);

	KUNIT_EXPECT_EQ(test, ashmem_test_purge(ULONG_MAX), 10);
	KUNIT_EXPECT_EQ(test, a->unpinned_pages, 0);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 4);
	KUNIT_EXPECT_EQ(test, b->purged_pages, 6);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), before);
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(ULONG_MAX), 0);
}

/*
 * The shrinker takes the least recently unpinned pages first, and what is
 * left of a range it has begun keeps the range's place.
 */
static void ashmem_purge_least_recently_unpinned(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area_resident(test,
							  ASHMEM_TEST_PAGES);
	struct ashmem_area *b = ashmem_test_area_resident(test,
							  ASHMEM_TEST_PAGES);

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(a, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(b, 4, 7), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(a, 10, 10), 0);

	KUNIT_EXPECT_EQ(test, ashmem_test_purge(1), 1);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, a),
			   "[0-0]P[1-1][10-10]");
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, b), "[4-7]");

	KUNIT_EXPECT_EQ(test, ashmem_test_purge(4), 4);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, a), "[0-1]P[10-10]");
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, b), "[4-6]P[7-7]");

	/* Unpinning again makes a range the youngest. */
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(b, 12, 12), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(a, 9, 9), 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(2), 2);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, b), "[4-7]P[12-12]P");
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, a), "[0-1]P[9-10]");
}

/* Purging frees the pages of the backing file, and only unpinned ones. */
static void ashmem_purge_punches_backing_file(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area(test, ASHMEM_TEST_PAGES);
	struct address_space *mapping = asma->file->f_mapping;
	pgoff_t index;

	for (index = 0; index < ASHMEM_TEST_PAGES; index++) {
		struct folio *folio = shmem_read_folio(mapping, index);

		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		folio_put(folio);
	}
	KUNIT_ASSERT_EQ(test, mapping->nrpages, ASHMEM_TEST_PAGES);

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 3, 6), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 12, 15), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_pin(asma, 14, 14), 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(ULONG_MAX), 7);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, ASHMEM_TEST_PAGES - 7);
	for (index = 0; index < ASHMEM_TEST_PAGES; index++) {
		bool purged = (index >= 3 && index <= 6) || index == 12 ||
			      index == 13 || index == 15;
		struct folio *folio = filemap_get_folio(mapping, index);

		KUNIT_EXPECT_EQ_MSG(test, IS_ERR(folio), purged, "page %lu",
				    index);
		if (!IS_ERR(folio))
			folio_put(folio);
	}
}

/*
 * The shrinker's count sums the pages of the oldest ASHMEM_COUNT_RANGES
 * ranges and scales that to the whole list: exact for ranges of one size.
 */
static void ashmem_count_long_list(struct kunit *test)
{
	const pgoff_t ranges = 3 * ASHMEM_COUNT_RANGES;
	struct ashmem_area *asma = ashmem_test_area(test, 3 * ranges);
	pgoff_t i;

	KUNIT_ASSERT_EQ(test, ashmem_test_lru_pages(), 0);
	for (i = 0; i < ranges; i++)
		KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 3 * i, 3 * i), 0);
	KUNIT_EXPECT_EQ(test, list_lru_count(&ashmem_lru), ranges);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), ranges);

	/* Each range grows to two pages; a pinned page keeps them apart. */
	for (i = 0; i < ranges; i++)
		KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 3 * i, 3 * i + 1),
				0);
	KUNIT_EXPECT_EQ(test, list_lru_count(&ashmem_lru), ranges);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 2 * ranges);
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(ULONG_MAX), 2 * ranges);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 0);
}

/* Releasing an area takes its ranges off the LRU. */
static void ashmem_release_drops_ranges(struct kunit *test)
{
	long before = ashmem_test_lru_pages();
	unsigned long ranges = list_lru_count(&ashmem_lru);
	struct ashmem_area *asma = ashmem_test_area(test, ASHMEM_TEST_PAGES);

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 0, 2), 0);
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 5, 9), 0);
	KUNIT_EXPECT_EQ(test, list_lru_count(&ashmem_lru), ranges + 2);

	kunit_release_action(test, ashmem_test_area_destroy, asma);
	KUNIT_EXPECT_EQ(test, list_lru_count(&ashmem_lru), ranges);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), before);
}

/* An area whose @pages pages are all in memory and unpinned. */
static struct ashmem_area *ashmem_test_area_unpinned(struct kunit *test,
						     pgoff_t pages)
{
	struct ashmem_area *asma = ashmem_test_area_resident(test, pages);

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 0, pages - 1), 0);
	return asma;
}

/*
 * Reclaim asks for a few pages at a time: a big range gives up that many,
 * from its front, and the rest stays on the LRU.
 */
static void ashmem_purge_takes_what_is_asked(struct kunit *test)
{
	const pgoff_t pages = 4 * ASHMEM_PURGE_BATCH;
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, pages);
	long before = ashmem_test_lru_pages();
	char want[64];

	KUNIT_EXPECT_EQ(test, ashmem_test_purge(1), 1);
	snprintf(want, sizeof(want), "[0-0]P[1-%lu]", pages - 1);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, asma), want);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), before - 1);
	KUNIT_EXPECT_EQ(test, asma->file->f_mapping->nrpages, pages - 1);

	/* More than a batch: several batches, one purged range. */
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(ASHMEM_PURGE_BATCH + 7),
			ASHMEM_PURGE_BATCH + 7);
	snprintf(want, sizeof(want), "[0-%lu]P[%lu-%lu]",
		 ASHMEM_PURGE_BATCH + 7, ASHMEM_PURGE_BATCH + 8, pages - 1);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, asma), want);
	KUNIT_EXPECT_EQ(test, list_lru_count(&ashmem_lru), 1);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, ASHMEM_PURGE_BATCH + 8);
	KUNIT_EXPECT_EQ(test, asma->unpinned_pages,
			pages - ASHMEM_PURGE_BATCH - 8);
}

/* One hold of the area's lock purges at most ASHMEM_PURGE_BATCH pages. */
static void ashmem_purge_batch_is_bounded(struct kunit *test)
{
	const pgoff_t pages = 3 * ASHMEM_PURGE_BATCH;
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, pages);
	struct ashmem_purge purge = {
		.target = ULONG_MAX,
		.nid = NUMA_NO_NODE,
	};
	struct ashmem_range *range;

	mutex_lock(&asma->lock);
	range = ashmem_range_find(asma, 0);
	KUNIT_EXPECT_EQ(test, ashmem_purge_batch(range, &purge),
			ASHMEM_PURGE_BATCH);
	KUNIT_EXPECT_EQ(test, purge.freed, ASHMEM_PURGE_BATCH);
	KUNIT_EXPECT_EQ(test, range->first, ASHMEM_PURGE_BATCH);
	KUNIT_EXPECT_FALSE(test, list_empty(&range->lru));
	mutex_unlock(&asma->lock);
}

/*
 * Holes count toward no batch: a huge range with one resident page at its
 * end goes in one batch, and a batch ends at the page that fills it.
 */
static void ashmem_purge_batch_skips_holes(struct kunit *test)
{
	const pgoff_t pages = 1UL << 30;
	struct ashmem_area *asma = ashmem_test_area(test, pages);
	struct address_space *mapping = asma->file->f_mapping;
	struct ashmem_purge purge = {
		.target = ULONG_MAX,
		.nid = NUMA_NO_NODE,
	};
	pgoff_t index[] = { 5, 6, pages / 2, pages - 1 };
	struct ashmem_range *range;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(index); i++) {
		struct folio *folio = shmem_read_folio(mapping, index[i]);

		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		folio_put(folio);
	}
	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(asma, 0, pages - 1), 0);

	mutex_lock(&asma->lock);
	purge.target = 2;
	range = ashmem_range_find(asma, 0);
	KUNIT_EXPECT_EQ(test, ashmem_purge_batch(range, &purge), 7);
	KUNIT_EXPECT_EQ(test, purge.freed, 2);
	KUNIT_EXPECT_EQ(test, range->first, 7);

	purge.target = ULONG_MAX;
	KUNIT_EXPECT_EQ(test, ashmem_purge_batch(range, &purge), pages - 7);
	KUNIT_EXPECT_EQ(test, purge.freed, 4);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, 0);
	mutex_unlock(&asma->lock);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, asma),
			   "[0-1073741823]P");
}

struct ashmem_test_purger {
	struct completion started;
	struct completion done;
};

static int ashmem_test_purger_fn(void *arg)
{
	struct ashmem_test_purger *p = arg;

	complete(&p->started);
	ashmem_test_purge(ULONG_MAX);
	complete(&p->done);
	return 0;
}

/*
 * While reclaim purges a range, the pages it has not freed yet still
 * count: a count that finds nothing comes only once none is in memory.
 */
static void ashmem_count_sees_pages_being_purged(struct kunit *test)
{
	const pgoff_t pages = 16 * ASHMEM_PURGE_BATCH;
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, pages);
	struct ashmem_test_purger p;
	struct task_struct *task;
	unsigned long samples = 0;

	init_completion(&p.started);
	init_completion(&p.done);
	task = kthread_run(ashmem_test_purger_fn, &p, "ashmem_purger");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&p.started);

	while (!completion_done(&p.done)) {
		long counted = ashmem_test_lru_pages();
		/* Read after the count: nrpages drops before the range goes. */
		unsigned long resident = data_race(asma->file->f_mapping->nrpages);

		samples++;
		if (!counted && resident) {
			KUNIT_FAIL(test, "count 0 with %lu of %lu pages still in memory",
				   resident, pages);
			break;
		}
		cond_resched();
	}
	wait_for_completion(&p.done);
	kunit_info(test, "%lu counts during the purge\n", samples);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, pages);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 0);
}

/* Reclaim that may not enter the filesystem purges nothing. */
static void ashmem_scan_without_fs_stops(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, 4);
	struct shrink_control sc = {
		.gfp_mask = GFP_NOFS,
		.nr_to_scan = 4,
		.nid = 0,
	};

	KUNIT_EXPECT_EQ(test, ashmem_shrink_scan(ashmem_shrinker, &sc),
			SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 4);
}

/*
 * A busy area is left in its place: the scan purges nothing there and
 * has its work deferred; the range is still the oldest afterwards.
 */
static void ashmem_scan_busy_area_defers(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area_unpinned(test, 2);
	struct ashmem_area *b = ashmem_test_area_unpinned(test, 2);
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nr_to_scan = 2,
		.nid = 0,
	};

	KUNIT_ASSERT_EQ(test, ashmem_test_pin(b, 0, 1), ASHMEM_NOT_PURGED);
	mutex_lock(&a->lock);
	KUNIT_EXPECT_EQ(test, ashmem_shrink_scan(ashmem_shrinker, &sc),
			SHRINK_STOP);
	mutex_unlock(&a->lock);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 0);

	KUNIT_ASSERT_EQ(test, ashmem_test_unpin(b, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, ashmem_shrink_scan(ashmem_shrinker, &sc), 2);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 2);
	KUNIT_EXPECT_EQ(test, b->purged_pages, 0);
}

/*
 * PURGE_ALL_CACHES waits for a busy area a few times, then leaves it and
 * returns what it purged elsewhere; the next call purges it.
 */
static void ashmem_purge_all_leaves_busy_area(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area_unpinned(test, 2);
	struct ashmem_area *b = ashmem_test_area_unpinned(test, 3);

	mutex_lock(&a->lock);
	KUNIT_EXPECT_EQ(test, ashmem_purge_all_caches(), 3);
	mutex_unlock(&a->lock);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 0);
	KUNIT_EXPECT_EQ(test, b->purged_pages, 3);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 2);

	KUNIT_EXPECT_EQ(test, ashmem_purge_all_caches(), 2);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 2);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 0);
}

/*
 * A task with a fatal signal pending walks once and does not wait for a
 * busy area: each wait is at least a jiffy, and there would be
 * ASHMEM_PURGE_ALL_TRIES of them.
 */
static void ashmem_purge_all_stops_on_fatal_signal(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area_unpinned(test, 2);
	unsigned long start;
	long purged;

	mutex_lock(&a->lock);
	/* A kernel thread ignores signals unless it allows them. */
	allow_signal(SIGKILL);
	force_sig(SIGKILL);
	KUNIT_EXPECT_TRUE(test, fatal_signal_pending(current));
	start = jiffies;
	purged = ashmem_purge_all_caches();
	KUNIT_EXPECT_LT(test, jiffies - start, ASHMEM_PURGE_ALL_TRIES / 2);
	flush_signals(current);
	disallow_signal(SIGKILL);
	mutex_unlock(&a->lock);
	KUNIT_EXPECT_EQ(test, purged, 0);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 2);
}

/*
 * The OOM notifier passes over an area whose backing inode is locked (the
 * task that hit OOM may hold it) and purges the others.
 */
static void ashmem_oom_passes_locked_inode(struct kunit *test)
{
	struct ashmem_area *a = ashmem_test_area_unpinned(test, 2);
	struct ashmem_area *b = ashmem_test_area_unpinned(test, 3);
	struct inode *inode = file_inode(a->file);
	unsigned long freed = 0;

	inode_lock(inode);
	ashmem_oom_notify(NULL, 0, &freed);
	inode_unlock(inode);
	KUNIT_EXPECT_EQ(test, freed, 3);
	KUNIT_EXPECT_EQ(test, a->purged_pages, 0);
	KUNIT_EXPECT_EQ(test, b->purged_pages, 3);
}

/*
 * Nor does it wait for a purge stuck on a folio lock: it gives up after
 * ASHMEM_OOM_WAIT, and the purge completes once the folio is unlocked.
 */
static void ashmem_oom_does_not_wait_for_folio_lock(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, 4);
	unsigned long freed = 0, start;
	struct folio *folio;

	folio = filemap_lock_folio(asma->file->f_mapping, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	start = jiffies;
	ashmem_oom_notify(NULL, 0, &freed);
	KUNIT_EXPECT_LE(test, jiffies - start, ASHMEM_OOM_WAIT + HZ / 2);
	KUNIT_EXPECT_EQ(test, freed, 0);
	folio_unlock(folio);
	folio_put(folio);
	flush_workqueue(ashmem_oom_wq);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, 4);
}

#ifdef CONFIG_COMPAT
/*
 * A 32-bit process gets the backing file's inode number in 32 bits, or
 * -EOVERFLOW when it does not fit, never a number cut to its low half.
 * tmpfs numbers its inodes in an unsigned long, so the test gives the
 * backing inode the numbers on both sides of the limit.
 */
static void ashmem_compat_file_id_overflows(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area(test, 1);
	struct inode *inode = file_inode(asma->file);
	const unsigned long ino = inode->i_ino;
	compat_ulong_t __user *uid;
	compat_ulong_t got = 0;
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory for the test");
	KUNIT_ASSERT_LT(test, addr, (unsigned long)TASK_SIZE);
	uid = (compat_ulong_t __user *)addr;

	KUNIT_EXPECT_EQ(test, ashmem_compat_get_file_id(asma, uid), 0);
	KUNIT_EXPECT_EQ(test, get_user(got, uid), 0);
	KUNIT_EXPECT_EQ(test, got, (compat_ulong_t)ino);

	inode->i_ino = U32_MAX;
	KUNIT_EXPECT_EQ(test, ashmem_compat_get_file_id(asma, uid), 0);
	KUNIT_EXPECT_EQ(test, get_user(got, uid), 0);
	KUNIT_EXPECT_EQ(test, got, U32_MAX);

	inode->i_ino = (unsigned long)U32_MAX + 1;
	KUNIT_EXPECT_EQ(test, ashmem_compat_get_file_id(asma, uid),
			-EOVERFLOW);
	/* The old number is left alone. */
	KUNIT_EXPECT_EQ(test, get_user(got, uid), 0);
	KUNIT_EXPECT_EQ(test, got, U32_MAX);
	inode->i_ino = ino;
}
#endif

static void ashmem_test_unpinning_on(void *unused)
{
	WRITE_ONCE(ashmem_unpinning_enable, true);
}

/*
 * Unpinning switched off: reclaim counts nothing, without unflagging the
 * list, and purges nothing, nor does the OOM notifier; PURGE_ALL_CACHES
 * still purges.  Switched on again, reclaim purges what was left.
 */
static void ashmem_unpinning_off_keeps_ranges(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area_unpinned(test, 4);
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nr_to_scan = 2,
		.nid = 0,
	};
	unsigned long freed = 0;
	int ret;

	ret = kunit_add_action_or_reset(test, ashmem_test_unpinning_on, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	WRITE_ONCE(ashmem_unpinning_enable, false);

	KUNIT_EXPECT_EQ(test, ashmem_shrink_count(ashmem_shrinker, &sc), 0);
	KUNIT_EXPECT_EQ(test, ashmem_shrink_scan(ashmem_shrinker, &sc),
			SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, ashmem_oom_notify(NULL, 0, &freed), NOTIFY_DONE);
	KUNIT_EXPECT_EQ(test, freed, 0);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, 0);
	KUNIT_EXPECT_EQ(test, ashmem_test_purge(1), 1);
	KUNIT_EXPECT_STREQ(test, ashmem_test_ranges(test, asma), "[0-0]P[1-3]");

	WRITE_ONCE(ashmem_unpinning_enable, true);
	KUNIT_EXPECT_EQ(test, ashmem_test_lru_pages(), 3);
	KUNIT_EXPECT_EQ(test, ashmem_shrink_scan(ashmem_shrinker, &sc), 2);
	KUNIT_EXPECT_EQ(test, asma->purged_pages, 3);
	KUNIT_EXPECT_EQ(test, asma->unpinned_pages, 1);
}

static void ashmem_test_fput(void *file)
{
	fput(file);
}

/* A file of /dev/ashmem's with an area of @pages pages, not mapped. */
static struct file *ashmem_test_file(struct kunit *test, pgoff_t pages)
{
	struct ashmem_area *asma = ashmem_area_create();
	struct file *file;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, asma);
	asma->size = pages << PAGE_SHIFT;
	file = anon_inode_getfile("ashmem", &ashmem_fops, asma, O_RDWR);
	if (IS_ERR(file))
		ashmem_area_destroy(asma);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ret = kunit_add_action_or_reset(test, ashmem_test_fput, file);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return file;
}

/* Another file, even an area's backing file, is refused. */
static void ashmem_exports_refuse_other_files(struct kunit *test)
{
	struct ashmem_area *asma = ashmem_test_area(test, 1);
	char name[ASHMEM_FULL_NAME_LEN];

	memset(name, 0xcc, sizeof(name));
	KUNIT_EXPECT_FALSE(test, is_ashmem_file(NULL));
	KUNIT_EXPECT_FALSE(test, is_ashmem_file(asma->file));
	KUNIT_EXPECT_EQ(test, ashmem_area_name(asma->file, name), -EINVAL);
	KUNIT_EXPECT_EQ(test, (u8)name[0], 0xcc);
	KUNIT_EXPECT_EQ(test, ashmem_area_size(asma->file), -EINVAL);
	KUNIT_EXPECT_NULL(test, ashmem_area_vmfile(asma->file));
}

/* An unnamed area before its first mmap: the default name, no file. */
static void ashmem_exports_unnamed_area(struct kunit *test)
{
	struct file *file = ashmem_test_file(test, 3);
	char name[ASHMEM_FULL_NAME_LEN];

	memset(name, 0xcc, sizeof(name));
	KUNIT_EXPECT_TRUE(test, is_ashmem_file(file));
	KUNIT_EXPECT_EQ(test, ashmem_area_name(file, name), 0);
	KUNIT_EXPECT_STREQ(test, name, ASHMEM_NAME_DEF);
	KUNIT_EXPECT_EQ(test, ashmem_area_size(file), 3 * PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, ashmem_area_vmfile(file));
}

/* A named area after its first mmap: the full name, the backing file. */
static void ashmem_exports_named_mapped_area(struct kunit *test)
{
	struct file *file = ashmem_test_file(test, 2);
	struct ashmem_area *asma = file->private_data;
	char name[ASHMEM_FULL_NAME_LEN];
	struct file *vmfile;
	long count;

	strscpy(asma->name + ASHMEM_NAME_PREFIX_LEN,
		"abcdefghijklmnopqrstuvwxyz0123456789", ASHMEM_NAME_LEN);
	ashmem_test_map(test, asma);

	memset(name, 0xcc, sizeof(name));
	KUNIT_EXPECT_EQ(test, ashmem_area_name(file, name), 0);
	KUNIT_EXPECT_STREQ(test, name,
			   "dev/ashmem/abcdefghijklmnopqrstuvwxyz0123456789");
	KUNIT_EXPECT_EQ(test, ashmem_area_size(file), 2 * PAGE_SIZE);

	count = file_count(asma->file);
	vmfile = ashmem_area_vmfile(file);
	KUNIT_EXPECT_PTR_EQ(test, vmfile, asma->file);
	KUNIT_EXPECT_EQ(test, file_count(asma->file), count + 1);
	if (vmfile)
		fput(vmfile);
}

/*
 * The randomized model test: random operations on an area, each answer and
 * the whole range structure checked against an array with a state per page.
 */
#define ASHMEM_MODEL_PAGES	48

enum ashmem_model_state { MODEL_PINNED, MODEL_UNPINNED, MODEL_PURGED };

struct ashmem_model {
	struct kunit *test;
	struct ashmem_area *asma;
	struct rnd_state rnd;
	u64 seed;
	unsigned long op;
	u8 page[ASHMEM_MODEL_PAGES];
};

static bool ashmem_model_any(struct ashmem_model *m, pgoff_t first,
			     pgoff_t last, u8 state)
{
	pgoff_t i;

	for (i = first; i <= last; i++)
		if (m->page[i] == state)
			return true;
	return false;
}

/* Check the ranges of the area against the model, page by page. */
static bool ashmem_model_check(struct ashmem_model *m)
{
	struct ashmem_area *asma = m->asma;
	struct kunit *test = m->test;
	unsigned long unpinned = 0, purged = 0;
	struct ashmem_range *range, *prev = NULL;
	u8 seen[ASHMEM_MODEL_PAGES] = { };
	struct rb_node *node;
	pgoff_t i;

	for (node = rb_first(&asma->ranges); node; node = rb_next(node)) {
		range = rb_entry(node, struct ashmem_range, node);
		if (range->first > range->last ||
		    range->last >= ASHMEM_MODEL_PAGES ||
		    (prev && prev->last >= range->first) ||
		    (prev && prev->purged == range->purged &&
		     prev->last + 1 == range->first) ||
		    range->purged != list_empty(&range->lru)) {
			KUNIT_FAIL(test, "seed %llu op %lu: bad range [%lu-%lu]%s",
				   m->seed, m->op, range->first, range->last,
				   range->purged ? "P" : "");
			return false;
		}
		for (i = range->first; i <= range->last; i++)
			seen[i] = range->purged ? MODEL_PURGED : MODEL_UNPINNED;
		if (range->purged)
			purged += ashmem_range_pages(range);
		else
			unpinned += ashmem_range_pages(range);
		prev = range;
	}

	for (i = 0; i < ASHMEM_MODEL_PAGES; i++) {
		if (seen[i] != m->page[i]) {
			KUNIT_FAIL(test, "seed %llu op %lu: page %lu is %u, model %u",
				   m->seed, m->op, i, seen[i], m->page[i]);
			return false;
		}
	}
	if (unpinned != asma->unpinned_pages || purged != asma->purged_pages ||
	    unpinned != ashmem_test_lru_pages()) {
		KUNIT_FAIL(test, "seed %llu op %lu: counted %lu/%lu/%ld, ranges hold %lu/%lu",
			   m->seed, m->op, asma->unpinned_pages,
			   asma->purged_pages,
			   ashmem_test_lru_pages(), unpinned, purged);
		return false;
	}
	return true;
}

/* Purge some of the LRU; the model takes what the area reports. */
static bool ashmem_model_purge(struct ashmem_model *m, unsigned long target)
{
	struct ashmem_area *asma = m->asma;
	unsigned long before = asma->unpinned_pages, freed, changed = 0;
	struct ashmem_range *range;
	struct rb_node *node;
	pgoff_t i;

	freed = ashmem_test_purge(target);
	for (node = rb_first(&asma->ranges); node; node = rb_next(node)) {
		range = rb_entry(node, struct ashmem_range, node);
		if (!range->purged)
			continue;
		for (i = range->first; i <= range->last; i++) {
			if (m->page[i] == MODEL_PINNED) {
				KUNIT_FAIL(m->test, "seed %llu op %lu: pinned page %lu purged",
					   m->seed, m->op, i);
				return false;
			}
			if (m->page[i] == MODEL_UNPINNED) {
				m->page[i] = MODEL_PURGED;
				changed++;
			}
		}
	}
	if (freed != changed || freed < min(target, before)) {
		KUNIT_FAIL(m->test,
			   "seed %llu op %lu: purge of %lu freed %lu, %lu changed, %lu were unpinned",
			   m->seed, m->op, target, freed, changed, before);
		return false;
	}
	return true;
}

static bool ashmem_model_step(struct ashmem_model *m)
{
	u32 op = prandom_u32_state(&m->rnd) % 100;
	pgoff_t first = prandom_u32_state(&m->rnd) % ASHMEM_MODEL_PAGES;
	pgoff_t last = first + prandom_u32_state(&m->rnd) %
		       min_t(pgoff_t, 12, ASHMEM_MODEL_PAGES - first);
	int ret, want;
	pgoff_t i;

	if (op < 45) {
		want = ashmem_model_any(m, first, last, MODEL_PURGED) ?
		       ASHMEM_WAS_PURGED : ASHMEM_NOT_PURGED;
		ret = ashmem_test_pin(m->asma, first, last);
		for (i = first; i <= last; i++)
			m->page[i] = MODEL_PINNED;
	} else if (op < 90) {
		want = 0;
		ret = ashmem_test_unpin(m->asma, first, last);
		for (i = first; i <= last; i++)
			if (m->page[i] == MODEL_PINNED)
				m->page[i] = MODEL_UNPINNED;
	} else if (op < 98) {
		want = ashmem_model_any(m, first, last, MODEL_UNPINNED) ||
		       ashmem_model_any(m, first, last, MODEL_PURGED) ?
		       ASHMEM_IS_UNPINNED : ASHMEM_IS_PINNED;
		ret = ashmem_test_status(m->asma, first, last);
	} else if (op < 99) {
		return ashmem_model_purge(m, 1 + prandom_u32_state(&m->rnd) %
					  ASHMEM_MODEL_PAGES) &&
		       ashmem_model_check(m);
	} else {
		return ashmem_model_purge(m, ULONG_MAX) && ashmem_model_check(m);
	}

	if (ret != want) {
		KUNIT_FAIL(m->test, "seed %llu op %lu: %u on [%lu-%lu] returned %d, model %d",
			   m->seed, m->op, op, first, last, ret, want);
		return false;
	}
	return ashmem_model_check(m);
}

static void ashmem_model_run(struct kunit *test, unsigned long ops)
{
	struct ashmem_model *m;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->test = test;
	m->asma = ashmem_test_area(test, ASHMEM_MODEL_PAGES);
	m->seed = get_random_u64();
	prandom_seed_state(&m->rnd, m->seed);
	kunit_info(test, "seed %llu, %lu operations\n", m->seed, ops);

	for (m->op = 0; m->op < ops; m->op++) {
		if (!ashmem_model_step(m))
			return;
		if (!(m->op % 4096))
			cond_resched();
	}
}

/*
 * A million operations in eight runs, each from a seed of its own.  Every
 * run is a case of its own for KUnit, whose caller waits for each: under
 * KASAN and lockdep one run takes seconds, so loading the module (which
 * runs these) never sits long enough for the hung-task detector.
 */
static const unsigned int ashmem_model_runs[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void ashmem_model_run_desc(const unsigned int *run, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "run %u of %zu", *run,
		 ARRAY_SIZE(ashmem_model_runs));
}

KUNIT_ARRAY_PARAM(ashmem_model, ashmem_model_runs, ashmem_model_run_desc);

static void ashmem_model_random_ops(struct kunit *test)
{
	ashmem_model_run(test, 1000000 / ARRAY_SIZE(ashmem_model_runs));
}

static struct kunit_case ashmem_test_cases[] = {
	KUNIT_CASE_PARAM(ashmem_pin_unpin_sequence, ashmem_ops_gen_params),
	KUNIT_CASE_PARAM(ashmem_pin_range_bounds, ashmem_bounds_gen_params),
	KUNIT_CASE(ashmem_pin_range_before_mmap),
	KUNIT_CASE(ashmem_status_reports_any_unpinned),
	KUNIT_CASE(ashmem_pages_counted),
	KUNIT_CASE(ashmem_purge_least_recently_unpinned),
	KUNIT_CASE(ashmem_purge_punches_backing_file),
	KUNIT_CASE(ashmem_release_drops_ranges),
	KUNIT_CASE(ashmem_count_long_list),
	KUNIT_CASE(ashmem_purge_takes_what_is_asked),
	KUNIT_CASE(ashmem_purge_batch_is_bounded),
	KUNIT_CASE(ashmem_purge_batch_skips_holes),
	KUNIT_CASE(ashmem_count_sees_pages_being_purged),
	KUNIT_CASE(ashmem_scan_without_fs_stops),
	KUNIT_CASE(ashmem_scan_busy_area_defers),
	KUNIT_CASE(ashmem_purge_all_leaves_busy_area),
	KUNIT_CASE(ashmem_purge_all_stops_on_fatal_signal),
	KUNIT_CASE(ashmem_oom_passes_locked_inode),
	KUNIT_CASE(ashmem_oom_does_not_wait_for_folio_lock),
	KUNIT_CASE(ashmem_unpinning_off_keeps_ranges),
	KUNIT_CASE(ashmem_exports_refuse_other_files),
	KUNIT_CASE(ashmem_exports_unnamed_area),
	KUNIT_CASE(ashmem_exports_named_mapped_area),
#ifdef CONFIG_COMPAT
	KUNIT_CASE(ashmem_compat_file_id_overflows),
#endif
	KUNIT_CASE_PARAM_ATTR(ashmem_model_random_ops, ashmem_model_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite ashmem_test_suite = {
	.name = "ashmem",
	.test_cases = ashmem_test_cases,
};

kunit_test_suite(ashmem_test_suite);
