/* SPDX-License-Identifier: GPL-2.0 */
/* struct folio_batch, of <linux/pagevec.h> before <linux/folio_batch.h>. */
#include <linux/pagevec.h>
