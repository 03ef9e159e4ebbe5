/*
 * Tensors and their views. A tensor is a shape plus the list of variable
 * regions that hold its elements in row-major order; every view (index,
 * slice, reshape, transpose, concat, broadcast ...) builds a new region
 * list in the graph's arena and never copies data.
 *
 * Most views are described as a strided walk over the source tensor's
 * element order: a base offset plus one stride per result dimension.
 * Adjacent dimensions that are contiguous in the source are fused first,
 * so a row slice or a dimension-0 slice of a contiguous tensor is a single
 * run located by binary search over the source's region offsets, whatever
 * the size of the source. Only when the innermost stride is not 1
 * (transpose, dim_shuffle, broadcast of a last dimension) is the result
 * walked element by element, which costs O(result elements).
 *
 * Reshape, flatten and expand keep the element order, so they share the
 * source's (immutable) region array; so does a contiguous slice that
 * begins and ends on region boundaries (a row slab of a transpose). The
 * region offsets of large sources are kept between slices (struct
 * tsi_slicer), so cutting a view of R regions costs O(log R + pieces cut),
 * not O(R) (issue 27).
 */
#include "../ipu-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most views have one or a few regions; these live on the stack. */
#define BUILDER_INLINE 8

/* The largest builder storage kept for the next view (1 MiB). */
#define SPARE_MAX_REGIONS ((size_t)1 << 16)

/* Room for the dimensions of a strided walk: a broadcast adds one. */
#define WALK_MAX_RANK (TSI_MAX_RANK + 1)

/* A growing region list that merges adjacent runs of one variable as they
 * are appended. */
typedef struct region_builder {
	tsi_region *items; /* `inline_items` or malloc'd */
	size_t len;
	size_t cap;
	bool failed;       /* an allocation failed; the list is incomplete */
	struct tsi_slicer *slicer; /* lends and takes back heap storage; may be NULL */
	tsi_region inline_items[BUILDER_INLINE];
} region_builder;

/* Views of at most this many regions get their prefix sums on the stack;
 * larger ones from the core's prefix cache. */
#define LOCATOR_INLINE 32

/* Entries of the core's prefix cache: the large views being cut up at a
 * time (an operand, its row slab, a block of that). */
#define PREFIX_CACHE_SLOTS 8

/* Prefix sums of one region list. */
typedef struct prefix_entry {
	const tsi_region *regions; /* key (shared by same-order views); NULL: free */
	uint32_t n_regions;        /* key too: scratch memory is reused */
	uint32_t pins;             /* locators reading `start` now: not evicted */
	bool scratch;              /* of a scratch view: goes with the scratch arena */
	uint64_t worth;            /* the cache's floor when last used + n_regions */
	size_t *start;             /* malloc, cap entries (>= n_regions) */
	size_t cap;
} prefix_entry;

/*
 * What slicing keeps between calls, one per graph core.
 *
 * A view is cut many times in a row (a matmul cuts its operand into row
 * slabs, each slab into blocks, each block into worker rows), and building
 * the prefix sums of a view of R regions costs R: kept, they make each cut
 * a binary search plus the pieces it cuts. Region lists live in arenas
 * and never change, so a list's address identifies it until its arena is
 * cleared: the graph's lives as long as the cache, the scratch arena's
 * entries are dropped when it is freed (tsi_graph_scratch_end).
 */
struct tsi_slicer {
	/* A builder's heap storage, handed from one view to the next (a
	 * matmul makes a million views of a few hundred regions each): at
	 * most SPARE_MAX_REGIONS entries are kept. */
	tsi_region *spare;
	size_t spare_cap;
	/* GreedyDual eviction: an entry is worth what it costs to rebuild
	 * (its regions) over the floor, the worth of the last one evicted.
	 * An operand sliced once per row slab outlives the many small blocks
	 * cut in between, which plain LRU would let push it out; what is no
	 * longer used sinks below the floor as the floor rises. */
	uint64_t floor;
	prefix_entry e[PREFIX_CACHE_SLOTS];
};

/* Finds the region holding element k of a tensor, using prefix sums of the
 * region lengths: on the stack for a small tensor, else borrowed from the
 * core's prefix cache (or, when every entry is in use, its own). */
typedef struct region_locator {
	const tsi_tensor *t;
	/* start[r] - base: the first element of region r; NULL if <= 1 region.
	 * base is not 0 when the list is a stretch of a longer one whose
	 * prefix sums the cache holds. */
	const size_t *start;
	size_t base;
	size_t hint;          /* region found last, tried first */
	prefix_entry *pinned; /* the cache entry `start` belongs to, or NULL */
	bool owned;           /* `start` is malloc'd for this locator alone */
	size_t local[LOCATOR_INLINE];
} region_locator;

/* --- Small helpers --------------------------------------------------------- */

/* Formats `shape` as "[a, b, c]" into `buf` for messages. */
static const char *format_shape(char *buf, size_t size, size_t rank, const size_t *shape)
{
	size_t used = 0;
	int n;

	n = snprintf(buf, size, "[");
	used = n > 0 ? (size_t)n : 0;
	for (size_t d = 0; d < rank && used < size; d++) {
		n = snprintf(buf + used, size - used, "%s%zu", d ? ", " : "", shape[d]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (used < size)
		snprintf(buf + used, size - used, "]");
	return buf;
}

/* Multiplies the dimensions of `shape` into *out; false on overflow. */
static bool shape_numel(size_t rank, const size_t *shape, size_t *out)
{
	size_t n = 1;

	for (size_t d = 0; d < rank; d++)
		if (__builtin_mul_overflow(n, shape[d], &n))
			return false;
	*out = n;
	return true;
}

/* Row-major strides (in elements) of a tensor's own shape. */
static void row_major_strides(const tsi_tensor *t, size_t *stride)
{
	size_t s = 1;

	for (size_t d = t->rank; d-- > 0;) {
		stride[d] = s;
		s *= t->shape[d];
	}
}

/* Records an out-of-memory failure while viewing `t`; returns NULL. */
static tsi_tensor *fail_oom(const tsi_tensor *t)
{
	tsi_graph_fail(t->graph, TSI_ERR_NO_MEMORY, "out of host memory making a view of %s",
	               tsi_tensor_describe(t));
	return NULL;
}

/* --- Region builder ------------------------------------------------------------ */

/* The graph's slicing state, made on first use; NULL when out of memory
 * (callers then do without). */
static struct tsi_slicer *slicer_of(tsi_graph *graph)
{
	tsi_graph_core *core = graph->core;

	if (!core->slicer)
		core->slicer = calloc(1, sizeof(*core->slicer));
	return core->slicer;
}

/* Starts an empty builder using its inline storage; it borrows the heap
 * storage `slicer` keeps (if any) once that is too small. */
static void builder_init(region_builder *b, struct tsi_slicer *slicer)
{
	b->items = b->inline_items;
	b->len = 0;
	b->cap = BUILDER_INLINE;
	b->failed = false;
	b->slicer = slicer;
}

/* Releases heap storage (to the slicer when it is worth keeping); the
 * builder is empty and reusable after. */
static void builder_free(region_builder *b)
{
	if (b->items != b->inline_items) {
		struct tsi_slicer *s = b->slicer;

		if (s && b->cap <= SPARE_MAX_REGIONS && b->cap > s->spare_cap) {
			free(s->spare);
			s->spare = b->items;
			s->spare_cap = b->cap;
		} else {
			free(b->items);
		}
	}
	b->items = b->inline_items;
	b->len = 0;
	b->cap = BUILDER_INLINE;
}

/*
 * Appends the run [begin, begin + len) of variable `var`, extending the
 * last region when the run continues it. Sets b->failed on OOM so that
 * callers can check once at the end.
 */
static void builder_push(region_builder *b, uint32_t var, size_t begin, size_t len)
{
	if (len == 0 || b->failed)
		return;
	if (b->len) {
		tsi_region *last = &b->items[b->len - 1];
		if (last->var == var && last->begin + last->len == begin) {
			last->len += len;
			return;
		}
	}
	if (b->len == b->cap) {
		size_t cap = b->cap * 2;
		tsi_region *items;

		if (b->items == b->inline_items) {
			if (b->slicer && b->slicer->spare) {
				/* Taken, so that no other builder shares it (heap
				 * storage is never smaller than cap). */
				items = b->slicer->spare;
				cap = b->slicer->spare_cap;
				b->slicer->spare = NULL;
				b->slicer->spare_cap = 0;
			} else {
				items = malloc(cap * sizeof(*items));
			}
			if (items)
				memcpy(items, b->inline_items, b->len * sizeof(*items));
		} else {
			items = realloc(b->items, cap * sizeof(*items));
		}
		if (!items) {
			b->failed = true;
			return;
		}
		b->items = items;
		b->cap = cap;
	}
	b->items[b->len].var = var;
	b->items[b->len].begin = begin;
	b->items[b->len].len = len;
	b->len++;
}

/* --- Locating elements of a source tensor ---------------------------------- */

/* Writes the first element of each of `t`'s regions into start[]. */
static void prefix_sums(size_t *start, const tsi_tensor *t)
{
	size_t pos = 0;

	for (size_t r = 0; r < t->n_regions; r++) {
		start[r] = pos;
		pos += t->regions[r].len;
	}
}

/* Frees an entry's prefix sums and makes it free. */
static void prefix_entry_clear(prefix_entry *e)
{
	free(e->start);
	memset(e, 0, sizeof(*e));
}

/* Gives entry `e` room for `n` prefix sums, reusing its buffer when that
 * is big enough but not four times too big; false on OOM (`e` free). */
static bool prefix_entry_reserve(prefix_entry *e, size_t n)
{
	if (e->start && e->cap >= n && e->cap / 4 <= n)
		return true;
	prefix_entry_clear(e);
	e->start = malloc(n * sizeof(*e->start));
	if (!e->start)
		return false;
	e->cap = n;
	return true;
}

void tsi_slicer_free(struct tsi_slicer *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < PREFIX_CACHE_SLOTS; i++)
		prefix_entry_clear(&cache->e[i]);
	free(cache->spare);
	free(cache);
}

/*
 * Points loc->start at the prefix sums of large tensor `t` from the core's
 * cache: those of its list, or of a list it is a stretch of (a row slab
 * shares its operand's list, see sublist_view); on a miss, computed into
 * a free entry or the unpinned one worth least. Pins the entry. False when
 * there is no cache or every entry is pinned (the caller makes its own);
 * *oom on an allocation failure.
 *
 * An entry's `scratch` says where its list may live: a view made outside
 * a scratch scope (or kept) has its list in the graph's arena, and any
 * view sharing that list, scratch or not, reads it there.
 */
static bool locator_from_cache(region_locator *loc, const tsi_tensor *t, bool *oom)
{
	struct tsi_slicer *c = slicer_of(t->graph);
	prefix_entry *victim = NULL;

	if (!c)
		return false;
	for (size_t i = 0; i < PREFIX_CACHE_SLOTS; i++) {
		prefix_entry *e = &c->e[i];

		if (e->regions && (uintptr_t)t->regions >= (uintptr_t)e->regions &&
		    (uintptr_t)(t->regions + t->n_regions) <= (uintptr_t)(e->regions + e->n_regions)) {
			size_t off = (size_t)(t->regions - e->regions);

			e->worth = c->floor + e->n_regions;
			e->pins++;
			loc->pinned = e;
			loc->start = e->start + off;
			loc->base = e->start[off];
			return true;
		}
		if (e->pins == 0 && (!victim || !e->regions ||
		                     (victim->regions && e->worth < victim->worth)))
			victim = e;
	}
	if (!victim)
		return false;
	if (victim->regions && victim->worth > c->floor)
		c->floor = victim->worth;
	if (!prefix_entry_reserve(victim, t->n_regions)) {
		*oom = true;
		return false;
	}
	prefix_sums(victim->start, t);
	victim->regions = t->regions;
	victim->n_regions = t->n_regions;
	victim->scratch = t->scratch;
	victim->worth = c->floor + t->n_regions;
	victim->pins++;
	loc->pinned = victim;
	loc->start = victim->start;
	return true;
}

/* Prepares a locator for `t`; false on OOM. */
static bool locator_init(region_locator *loc, const tsi_tensor *t)
{
	bool oom = false;

	loc->t = t;
	loc->start = NULL;
	loc->base = 0;
	loc->hint = 0;
	loc->pinned = NULL;
	loc->owned = false;
	if (t->n_regions <= 1)
		return true;
	if (t->n_regions <= LOCATOR_INLINE) {
		prefix_sums(loc->local, t);
		loc->start = loc->local;
		return true;
	}
	if (locator_from_cache(loc, t, &oom))
		return true;
	if (oom)
		return false;
	size_t *own = malloc(t->n_regions * sizeof(*own));
	if (!own)
		return false;
	prefix_sums(own, t);
	loc->start = own;
	loc->owned = true;
	return true;
}

/* Releases the prefix sums: unpins the cache entry or frees its own. */
static void locator_free(region_locator *loc)
{
	if (loc->pinned)
		loc->pinned->pins--;
	if (loc->owned)
		free((size_t *)loc->start);
	loc->start = NULL;
	loc->pinned = NULL;
	loc->owned = false;
}

/* Index of the region holding element `k` (< numel) of the source. Walks
 * tend to move forward, so the last region and its successor are tried
 * before a binary search. */
static size_t locator_find(region_locator *loc, size_t k)
{
	const tsi_tensor *t = loc->t;
	size_t lo, hi;

	if (!loc->start)
		return 0;
	k += loc->base;
	for (size_t r = loc->hint; r < loc->hint + 2 && r < t->n_regions; r++) {
		if (loc->start[r] <= k && k - loc->start[r] < t->regions[r].len) {
			loc->hint = r;
			return r;
		}
	}
	/* Last region whose start is <= k: galloping forward from the hint
	 * when k lies beyond it (a walk's next row: a few probes near the
	 * last, not a search over the whole list), else searched for in it. */
	lo = 0;
	hi = t->n_regions;
	if (loc->hint < hi && loc->start[loc->hint] <= k) {
		size_t step = 2;

		lo = loc->hint;
		while (lo + step < hi && loc->start[lo + step] <= k) {
			lo += step;
			step *= 2;
		}
		if (lo + step < hi)
			hi = lo + step;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (loc->start[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	loc->hint = lo;
	return lo;
}

/* Appends source elements [a, a + len) of the locator's tensor, in order. */
static void emit_range(region_builder *b, region_locator *loc, size_t a, size_t len)
{
	const tsi_tensor *t = loc->t;
	size_t r, off;

	if (len == 0)
		return;
	r = locator_find(loc, a);
	off = loc->start ? a + loc->base - loc->start[r] : a;
	while (len > 0 && r < t->n_regions) {
		const tsi_region *reg = &t->regions[r];
		size_t take = reg->len - off;

		if (take > len)
			take = len;
		builder_push(b, reg->var, reg->begin + off, take);
		len -= take;
		off = 0;
		r++;
	}
	if (r > 0)
		loc->hint = r - 1;
}

/* Drops the dimensions of size 1 of a walk and fuses the adjacent ones
 * that are contiguous in the source, into sh[] and st[]; returns how many
 * are left, or SIZE_MAX when the walk visits no element. */
static size_t fuse_walk(size_t n, const size_t *shape, const size_t *stride, size_t *sh,
                        size_t *st)
{
	size_t m = 0;

	for (size_t d = 0; d < n; d++) {
		if (shape[d] == 0)
			return SIZE_MAX;
		if (shape[d] == 1)
			continue;
		if (m > 0 && st[m - 1] == stride[d] * shape[d]) {
			sh[m - 1] *= shape[d];
			st[m - 1] = stride[d];
			continue;
		}
		sh[m] = shape[d];
		st[m] = stride[d];
		m++;
	}
	return m;
}

/*
 * Appends the source elements visited by a strided walk: for every index
 * (i_0 .. i_{n-1}) of `shape` in row-major order, source element
 * base + sum(i_d * stride[d]). Dimensions of size 1 are dropped and
 * adjacent dimensions that are contiguous in the source are fused first,
 * so a walk over a contiguous block costs one emit_range.
 */
static void emit_strided(region_builder *b, region_locator *loc, size_t base, size_t n,
                         const size_t *shape, const size_t *stride)
{
	size_t sh[WALK_MAX_RANK], st[WALK_MAX_RANK], idx[WALK_MAX_RANK];
	size_t m = fuse_walk(n, shape, stride, sh, st), run, inner_stride, offset;

	if (m == SIZE_MAX)
		return; /* no elements */
	if (m == 0) {
		emit_range(b, loc, base, 1);
		return;
	}
	/* The innermost dimension is either one run or a loop of single
	 * elements; the odometer covers the dimensions outside it. */
	run = sh[m - 1];
	inner_stride = st[m - 1];
	m--;
	memset(idx, 0, sizeof(idx));
	offset = base;
	for (;;) {
		if (inner_stride == 1) {
			emit_range(b, loc, offset, run);
		} else if (loc->t->n_regions == 1) {
			/* One region (a variable, a slice of one): no search. */
			const tsi_region *reg = &loc->t->regions[0];

			for (size_t i = 0; i < run && !b->failed; i++)
				builder_push(b, reg->var, reg->begin + offset + i * inner_stride, 1);
		} else {
			for (size_t i = 0; i < run && !b->failed; i++)
				emit_range(b, loc, offset + i * inner_stride, 1);
		}
		if (b->failed)
			return;
		size_t d = m;
		while (d > 0) {
			d--;
			idx[d]++;
			offset += st[d];
			if (idx[d] < sh[d])
				break;
			offset -= idx[d] * st[d];
			idx[d] = 0;
			if (d == 0)
				return;
		}
		if (m == 0)
			return;
	}
}

/* --- Making tensors ------------------------------------------------------------ */

/* Allocates a tensor of `rank` dims (var = -1) with room for `n_regions`
 * regions behind its shape (t->regions points there when n_regions > 0; a
 * view sharing another's list passes 0): in the scratch arena while a
 * scratch scope is open, unless `keep`, else in the graph's arena. */
static tsi_tensor *alloc_tensor(tsi_graph *graph, tsi_type type, size_t rank, const size_t *shape,
                                size_t numel, size_t n_regions, bool keep)
{
	size_t bytes = sizeof(tsi_tensor) + rank * sizeof(size_t);
	tsi_graph_core *core = graph->core;
	bool scratch = core->scratch_depth > 0 && !keep;
	tsi_tensor *t;

	if (n_regions > UINT32_MAX || n_regions > (SIZE_MAX - bytes) / sizeof(tsi_region))
		return NULL;
	t = tsi_arena_alloc8(scratch ? &core->scratch : &core->arena,
	                     bytes + n_regions * sizeof(tsi_region));
	if (!t)
		return NULL;
	t->graph = graph;
	t->type = type;
	t->rank = (uint8_t)rank;
	t->scratch = scratch;
	for (size_t d = 0; d < rank; d++)
		t->shape[d] = shape[d];
	t->numel = numel;
	t->var = -1;
	if (n_regions)
		t->regions = (tsi_region *)(t->shape + rank);
	return t;
}

/* True when region `b` continues region `a` (same variable, next element). */
static bool region_continues(const tsi_region *a, const tsi_region *b)
{
	return a->var == b->var && a->begin + a->len == b->begin;
}

/* Slots of the core's view cache: 512 KiB of pointers. */
#define VIEW_CACHE_BITS 16
#define VIEW_CACHE_SLOTS ((size_t)1 << VIEW_CACHE_BITS)

/* Mixes one word into an FNV-style hash. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3u;
}

/* Regions are compared with memcmp: no padding to hold stray bytes. */
_Static_assert(sizeof(tsi_region) == 2 * sizeof(uint32_t) + sizeof(size_t),
               "tsi_region has padding");

/* True when `c` is the view of this type and shape holding the merged
 * region list `regions`. */
static bool same_view(const tsi_tensor *c, tsi_type type, size_t rank, const size_t *shape,
                      const tsi_region *regions, size_t n_regions)
{
	if (c->type != type || c->rank != rank || c->n_regions != n_regions || c->var >= 0)
		return false;
	for (size_t d = 0; d < rank; d++)
		if (c->shape[d] != shape[d])
			return false;
	return n_regions == 0 || memcmp(c->regions, regions, n_regions * sizeof(*regions)) == 0;
}

/* Regions of a list the view cache's hash reads: all of a short list, else
 * this many spread evenly over it, the first and the last included. The
 * hash only picks a slot (same_view decides), and reading every region of
 * a view cut into thousands of pieces would cost as much as making it. */
#define HASH_SAMPLES 16

/* The view cache's hash of a view: its type, shape, element and region
 * counts, graph, and sampled regions of its merged list. */
static uint64_t view_hash(const tsi_graph *graph, tsi_type type, size_t rank,
                          const size_t *shape, const tsi_region *regions, size_t n_regions,
                          size_t numel)
{
	uint64_t hash = mix(mix(0xcbf29ce484222325u, (uint64_t)type), rank);
	size_t samples = n_regions < HASH_SAMPLES ? n_regions : HASH_SAMPLES;

	for (size_t d = 0; d < rank; d++)
		hash = mix(hash, shape[d]);
	for (size_t i = 0; i < samples; i++) {
		const tsi_region *r =
		    &regions[samples < n_regions ? i * (n_regions - 1) / (samples - 1) : i];

		hash = mix(mix(mix(hash, r->var), r->begin), r->len);
	}
	return mix(mix(mix(hash, n_regions), numel), (uint64_t)(uintptr_t)graph);
}

/* Where a view goes in the view cache: its slot (NULL: no cache) and
 * the tag kept beside it. */
typedef struct cache_pos {
	const tsi_tensor **slot;
	uint32_t tag;
} cache_pos;

/*
 * Looks up the view of `graph` with this type, shape and merged list: the
 * equal view the cache holds (not a scratch one when `keep`), else NULL
 * with *pos where to put the new one. A slot's tag (32 bits of the hash
 * of what it holds) is read first: most lookups miss, and telling so
 * from the held view would read it from wherever the arena put it, cold.
 */
static tsi_tensor *cache_lookup(cache_pos *pos, tsi_graph *graph, tsi_type type, size_t rank,
                                const size_t *shape, const tsi_region *regions,
                                size_t n_regions, size_t numel, bool keep)
{
	tsi_graph_core *core = graph->core;
	const tsi_tensor *c;
	uint64_t hash;
	size_t i;

	pos->slot = NULL;
	if (!core->view_cache) {
		core->view_cache = calloc(VIEW_CACHE_SLOTS, sizeof(*core->view_cache));
		core->view_tags = calloc(VIEW_CACHE_SLOTS, sizeof(*core->view_tags));
		if (!core->view_cache || !core->view_tags) {
			free(core->view_cache);
			free(core->view_tags);
			core->view_cache = NULL;
			core->view_tags = NULL;
		}
	}
	if (!core->view_cache)
		return NULL;
	hash = view_hash(graph, type, rank, shape, regions, n_regions, numel);
	i = (hash ^ hash >> 32) & (VIEW_CACHE_SLOTS - 1);
	pos->slot = &core->view_cache[i];
	pos->tag = (uint32_t)(hash >> 32);
	if (core->view_tags[i] != pos->tag)
		return NULL;
	c = *pos->slot;
	if (c && c->graph == graph && !(keep && c->scratch) &&
	    same_view(c, type, rank, shape, regions, n_regions))
		return (tsi_tensor *)c;
	return NULL;
}

static bool note_scratch_slot(tsi_graph_core *core, size_t slot);

/* Puts new view `t` where cache_lookup said: unless the end of the scope
 * can find it again, a scratch view stays out of the cache. */
static void cache_put(tsi_graph_core *core, const cache_pos *pos, tsi_tensor *t)
{
	size_t i;

	if (!pos->slot)
		return;
	i = (size_t)(pos->slot - core->view_cache);
	if (!t->scratch || note_scratch_slot(core, i)) {
		*pos->slot = t;
		core->view_tags[i] = pos->tag;
	}
}

/* Remembers that view-cache slot `slot` now holds a scratch view, so that
 * the end of the scope empties it. False when out of memory. */
static bool note_scratch_slot(tsi_graph_core *core, size_t slot)
{
	if (core->n_scratch_slots == core->cap_scratch_slots) {
		size_t cap = core->cap_scratch_slots ? 2 * core->cap_scratch_slots : 1024;
		uint32_t *s = realloc(core->scratch_slots, cap * sizeof(*s));
		if (!s)
			return false;
		core->scratch_slots = s;
		core->cap_scratch_slots = cap;
	}
	core->scratch_slots[core->n_scratch_slots++] = (uint32_t)slot;
	return true;
}

/*
 * Makes a tensor from a region list: validates the rank and that the
 * regions hold exactly as many elements as the shape, then copies the list
 * into the arena with adjacent runs of one variable merged. A view equal
 * to one made recently in the same graph is that view: tensors are
 * immutable, and large models ask for the same slices millions of times
 * (a third of bert_synth --size large's views). With `keep` the view is
 * made in (or found in) the graph's arena even inside a scratch scope.
 */
static tsi_tensor *make_tensor(tsi_graph *graph, tsi_type type, size_t rank, const size_t *shape,
                               const tsi_region *regions, size_t n_regions, bool use_cache,
                               bool keep)
{
	char buf[160];
	size_t numel, total = 0;
	bool canonical = true;
	tsi_tensor *t;

	if (!graph)
		return NULL;
	if (rank > TSI_MAX_RANK || (rank && !shape)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "a tensor may have at most %d dimensions, not %zu", TSI_MAX_RANK, rank);
		return NULL;
	}
	if (!shape_numel(rank, shape, &numel)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "tensor shape %s is too large",
		               format_shape(buf, sizeof(buf), rank, shape));
		return NULL;
	}
	/* Most lists come merged (the view builder merges as it goes). One
	 * that does not is merged first, so that the tensor is one exact
	 * allocation and the cache compares merged lists. */
	for (size_t r = 0; r < n_regions; r++) {
		total += regions[r].len;
		if (regions[r].len == 0 || (r && region_continues(&regions[r - 1], &regions[r])))
			canonical = false;
	}
	if (total != numel) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "tensor of shape %s (%zu elements) given regions holding %zu elements",
		               format_shape(buf, sizeof(buf), rank, shape), numel, total);
		return NULL;
	}
	if (!canonical) {
		tsi_region *merged = malloc(n_regions * sizeof(*merged));
		size_t n = 0;

		if (!merged) {
			tsi_graph_fail(graph, TSI_ERR_NO_MEMORY,
			               "out of host memory making a tensor of shape %s",
			               format_shape(buf, sizeof(buf), rank, shape));
			return NULL;
		}
		for (size_t r = 0; r < n_regions; r++) {
			if (regions[r].len == 0)
				continue;
			if (n && region_continues(&merged[n - 1], &regions[r]))
				merged[n - 1].len += regions[r].len;
			else
				merged[n++] = regions[r];
		}
		t = make_tensor(graph, type, rank, shape, merged, n, use_cache, keep);
		free(merged);
		return t;
	}
	cache_pos pos = {NULL, 0};
	if (use_cache &&
	    (t = cache_lookup(&pos, graph, type, rank, shape, regions, n_regions, numel, keep)))
		return t;
	t = alloc_tensor(graph, type, rank, shape, numel, n_regions, keep);
	if (t)
		cache_put(graph->core, &pos, t);
	if (!t) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY,
		               "out of host memory making a tensor of shape %s",
		               format_shape(buf, sizeof(buf), rank, shape));
		return NULL;
	}
	if (n_regions)
		memcpy(t->regions, regions, n_regions * sizeof(*regions));
	t->n_regions = (uint32_t)n_regions;
	return t;
}

tsi_tensor *tsi_tensor_make(tsi_graph *graph, tsi_type type, size_t rank, const size_t *shape,
                            const tsi_region *regions, size_t n_regions)
{
	return make_tensor(graph, type, rank, shape, regions, n_regions, true, false);
}

void tsi_graph_scratch_begin(tsi_graph *graph)
{
	if (graph)
		graph->core->scratch_depth++;
}

/* Ends a scope; the outermost end empties the cache slots that hold
 * scratch views and frees every scratch view. */
void tsi_graph_scratch_end(tsi_graph *graph)
{
	tsi_graph_core *core;

	if (!graph || graph->core->scratch_depth == 0)
		return;
	core = graph->core;
	if (--core->scratch_depth > 0)
		return;
	for (size_t i = 0; i < core->n_scratch_slots; i++) {
		const tsi_tensor **slot = &core->view_cache[core->scratch_slots[i]];
		if (*slot && (*slot)->scratch)
			*slot = NULL;
	}
	core->n_scratch_slots = 0;
	/* The scratch arena's region lists go, and their addresses will be
	 * handed out again. */
	for (size_t i = 0; core->slicer && i < PREFIX_CACHE_SLOTS; i++)
		if (core->slicer->e[i].scratch)
			prefix_entry_clear(&core->slicer->e[i]);
	tsi_arena_clear(&core->scratch);
}

const tsi_tensor *tsi_tensor_keep(const tsi_tensor *t)
{
	if (!t || !t->scratch)
		return t;
	return make_tensor(t->graph, t->type, t->rank, t->shape, t->regions, t->n_regions, true,
	                   true);
}

/* The whole-variable tensor of `var`: one region, the variable's shape.
 * Never a cached view, as it is marked as the variable's own. */
tsi_tensor *tsi_tensor_of_var(tsi_graph *graph, const tsi_var *var)
{
	tsi_region region;
	tsi_tensor *t;

	if (!graph || !var)
		return NULL;
	region.var = var->id;
	region.begin = 0;
	region.len = var->numel;
	t = make_tensor(graph, var->type, var->rank, var->shape, &region, var->numel ? 1 : 0, false,
	                true);
	if (t)
		t->var = (int32_t)var->id;
	return t;
}

/* Turns a finished builder into a view of `src` with the given shape.
 * Frees the builder in every case. */
static tsi_tensor *finish_view(const tsi_tensor *src, region_builder *b, size_t rank,
                               const size_t *shape)
{
	tsi_tensor *t = NULL;

	if (b->failed)
		fail_oom(src);
	else
		t = tsi_tensor_make(src->graph, src->type, rank, shape, b->items, b->len);
	builder_free(b);
	return t;
}

/*
 * The view of `src` visited by a strided walk (see emit_strided) with the
 * result shape `rshape`. Both shapes must describe the same element count.
 */
/*
 * The view of `src`'s elements [a, a + len) (len >= 1) with the result
 * shape, when the run begins and ends on region boundaries: it is then a
 * stretch of `src`'s region list, and shares it instead of copying (a
 * row slab of a view of one region per element, the rows of that slab).
 * NULL when the run cuts a region, or out of memory (the caller then
 * builds the view, and reports a failure itself).
 */
static tsi_tensor *sublist_view(const tsi_tensor *src, region_locator *loc, size_t a,
                                size_t len, size_t rrank, const size_t *rshape)
{
	size_t r0 = locator_find(loc, a), r1 = locator_find(loc, a + len - 1), nr;
	const tsi_region *regions = src->regions + r0;
	tsi_graph *graph = src->graph;
	cache_pos pos;
	tsi_tensor *t;

	if (loc->start[r0] - loc->base != a ||
	    loc->start[r1] - loc->base + src->regions[r1].len != a + len)
		return NULL;
	nr = r1 - r0 + 1;
	t = cache_lookup(&pos, graph, src->type, rrank, rshape, regions, nr, len, false);
	if (t)
		return t;
	t = alloc_tensor(graph, src->type, rrank, rshape, len, 0, false);
	if (!t)
		return NULL;
	t->regions = (tsi_region *)regions;
	t->n_regions = (uint32_t)nr;
	cache_put(graph->core, &pos, t);
	return t;
}

static tsi_tensor *strided_view(const tsi_tensor *src, size_t base, size_t n,
                                const size_t *wshape, const size_t *wstride, size_t rrank,
                                const size_t *rshape)
{
	size_t sh[WALK_MAX_RANK], st[WALK_MAX_RANK];
	size_t m = fuse_walk(n, wshape, wstride, sh, st);
	region_builder b;
	region_locator loc;

	if (!locator_init(&loc, src))
		return fail_oom(src);
	/* One contiguous run of a view of many regions: perhaps a stretch of
	 * its list. */
	if (src->n_regions > 1 && (m == 0 || (m == 1 && st[0] == 1))) {
		tsi_tensor *t = sublist_view(src, &loc, base, m ? sh[0] : 1, rrank, rshape);

		if (t) {
			locator_free(&loc);
			return t;
		}
	}
	builder_init(&b, slicer_of(src->graph));
	emit_strided(&b, &loc, base, n, wshape, wstride);
	locator_free(&loc);
	return finish_view(src, &b, rrank, rshape);
}

/* A view sharing `src`'s regions (same element order) with a new shape. */
static tsi_tensor *same_order_view(const tsi_tensor *src, size_t rank, const size_t *shape)
{
	tsi_tensor *t = alloc_tensor(src->graph, src->type, rank, shape, src->numel, 0, false);

	if (!t)
		return fail_oom(src);
	t->n_regions = src->n_regions;
	t->regions = src->regions;
	return t;
}

/* qsort order of regions by first element. */
static int region_by_begin(const void *a, const void *b)
{
	const tsi_region *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * The variable a tensor holds all of, each element once, in any order or
 * shape: the variable itself, or a view such as the blocked layout the
 * matmul input helpers return (pieces of one variable reshaped and
 * concatenated). -1 for anything else. Such a view is the variable to
 * its user, so it goes by the variable's name.
 */
static int64_t whole_variable(const tsi_tensor *t)
{
	const tsi_var *v;
	tsi_region *sorted;
	size_t total = 0, next = 0;
	bool whole = true;

	if (t->var >= 0)
		return t->var;
	if (t->n_regions == 0)
		return -1;
	v = tsi_graph_var(t->graph, t->regions[0].var);
	for (size_t i = 0; i < t->n_regions; i++) {
		if (t->regions[i].var != t->regions[0].var)
			return -1;
		total += t->regions[i].len;
	}
	if (total != v->numel || t->numel != v->numel)
		return -1;
	sorted = malloc(t->n_regions * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, t->regions, t->n_regions * sizeof(*sorted));
	qsort(sorted, t->n_regions, sizeof(*sorted), region_by_begin);
	for (size_t i = 0; i < t->n_regions && whole; i++) {
		whole = sorted[i].begin == next;
		next += sorted[i].len;
	}
	free(sorted);
	return whole ? (int64_t)t->regions[0].var : -1;
}

/*
 * Describes a tensor for error messages: "'v1'" for a whole variable (or
 * all of it rearranged, see whole_variable),
 * "a view of 'v1' (3 elements)" for a view (named after the variable of
 * its first element). Arena string.
 */
const char *tsi_tensor_describe(const tsi_tensor *t)
{
	const char *s;

	int64_t whole;

	if (!t)
		return "(no tensor)";
	whole = whole_variable(t);
	if (whole >= 0)
		s = tsi_arena_printf(&t->graph->core->arena, "'%s'",
		                     tsi_graph_var(t->graph, (uint32_t)whole)->name);
	else if (t->n_regions == 0)
		s = tsi_arena_printf(&t->graph->core->arena, "an empty view");
	else
		s = tsi_arena_printf(&t->graph->core->arena, "a view of '%s' (%zu element%s)",
		                     tsi_graph_var(t->graph, t->regions[0].var)->name, t->numel,
		                     t->numel == 1 ? "" : "s");
	return s ? s : "a tensor";
}

/* --- Accessors ------------------------------------------------------------------ */

/* Element type; TSI_FLOAT for NULL (callers check the tensor first). */
TSI_API tsi_type tsi_tensor_type(const tsi_tensor *t)
{
	return t ? t->type : TSI_FLOAT;
}

/* Number of dimensions, 0 for a scalar or NULL. */
TSI_API size_t tsi_tensor_rank(const tsi_tensor *t)
{
	return t ? t->rank : 0;
}

/* Size of dimension `dim`, 0 for a missing tensor or dimension. */
TSI_API size_t tsi_tensor_dim(const tsi_tensor *t, size_t dim)
{
	return t && dim < t->rank ? t->shape[dim] : 0;
}

/* Number of elements, 0 for NULL. */
TSI_API size_t tsi_tensor_numel(const tsi_tensor *t)
{
	return t ? t->numel : 0;
}

/* Copies the dimensions into `shape` (if given) and returns the rank. */
TSI_API size_t tsi_tensor_fill_shape(size_t *shape, const tsi_tensor *t)
{
	if (!t)
		return 0;
	for (size_t d = 0; shape && d < t->rank; d++)
		shape[d] = t->shape[d];
	return t->rank;
}

/* The graph (possibly virtual) the tensor was made in. */
TSI_API tsi_graph *tsi_tensor_graph(const tsi_tensor *t)
{
	return t ? t->graph : NULL;
}

/* The variable's name for a whole-variable tensor; NULL for views. */
TSI_API const char *tsi_tensor_name(const tsi_tensor *t)
{
	int64_t whole = t ? whole_variable(t) : -1;

	return whole >= 0 ? tsi_graph_var(t->graph, (uint32_t)whole)->name : NULL;
}

/* Regions are merged when made, so one region means one contiguous run;
 * an empty tensor is trivially contiguous. */
TSI_API bool tsi_tensor_is_contiguous(const tsi_tensor *t)
{
	return t && t->n_regions <= 1;
}

/* True when every region lies in a constant (vacuously for no elements). */
TSI_API bool tsi_tensor_is_constant(const tsi_tensor *t)
{
	if (!t)
		return false;
	for (size_t r = 0; r < t->n_regions; r++)
		if (!tsi_graph_var(t->graph, t->regions[r].var)->is_constant)
			return false;
	return true;
}

/* --- Views ------------------------------------------------------------------------ */

/* t[i]: the sub-tensor at index i of dimension 0, one rank lower. */
TSI_API tsi_tensor *tsi_tensor_index(const tsi_tensor *t, size_t i)
{
	size_t stride[TSI_MAX_RANK];
	char buf[160];

	if (!t)
		return NULL;
	if (t->rank == 0) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot index %s: it is a scalar (rank 0)", tsi_tensor_describe(t));
		return NULL;
	}
	if (i >= t->shape[0]) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "index %zu is out of range for %s of shape %s", i, tsi_tensor_describe(t),
		               format_shape(buf, sizeof(buf), t->rank, t->shape));
		return NULL;
	}
	row_major_strides(t, stride);
	return strided_view(t, i * stride[0], t->rank - 1, t->shape + 1, stride + 1, t->rank - 1,
	                    t->shape + 1);
}

/* Elements [begin, end) of dimension 0. */
TSI_API tsi_tensor *tsi_tensor_slice(const tsi_tensor *t, size_t begin, size_t end)
{
	return tsi_tensor_slice_dim(t, begin, end, 0);
}

/* Checks one dimension's slice bounds; records the error and returns false. */
static bool check_slice(const tsi_tensor *t, size_t begin, size_t end, size_t dim)
{
	char buf[160];

	if (t->rank == 0) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot slice %s: it is a scalar (rank 0)", tsi_tensor_describe(t));
		return false;
	}
	if (dim >= t->rank) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot slice dimension %zu of %s: it has %zu dimension%s", dim,
		               tsi_tensor_describe(t), (size_t)t->rank, t->rank == 1 ? "" : "s");
		return false;
	}
	if (begin > end) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "slice [%zu, %zu) of dimension %zu of %s begins after it ends", begin, end,
		               dim, tsi_tensor_describe(t));
		return false;
	}
	if (end > t->shape[dim]) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "slice [%zu, %zu) of dimension %zu is out of range for %s of shape %s",
		               begin, end, dim, tsi_tensor_describe(t),
		               format_shape(buf, sizeof(buf), t->rank, t->shape));
		return false;
	}
	return true;
}

/* Elements [begin, end) of dimension `dim`: the source walked with its own
 * strides from the slice's first element. */
TSI_API tsi_tensor *tsi_tensor_slice_dim(const tsi_tensor *t, size_t begin, size_t end,
                                         size_t dim)
{
	size_t stride[TSI_MAX_RANK], shape[TSI_MAX_RANK];

	if (!t)
		return NULL;
	if (!check_slice(t, begin, end, dim))
		return NULL;
	row_major_strides(t, stride);
	memcpy(shape, t->shape, t->rank * sizeof(*shape));
	shape[dim] = end - begin;
	return strided_view(t, begin * stride[dim], t->rank, shape, stride, t->rank, shape);
}

/* Slices of the first `n` dimensions at once (one walk, not n views). */
TSI_API tsi_tensor *tsi_tensor_slice_md(const tsi_tensor *t, const size_t *begin,
                                        const size_t *end, size_t n)
{
	size_t stride[TSI_MAX_RANK], shape[TSI_MAX_RANK];
	size_t base = 0;

	if (!t)
		return NULL;
	if (n > t->rank) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot slice %zu dimensions of %s: it has %zu", n,
		               tsi_tensor_describe(t), (size_t)t->rank);
		return NULL;
	}
	if (n && (!begin || !end)) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "slicing %s needs begin and end arrays", tsi_tensor_describe(t));
		return NULL;
	}
	row_major_strides(t, stride);
	memcpy(shape, t->shape, t->rank * sizeof(*shape));
	for (size_t d = 0; d < n; d++) {
		if (!check_slice(t, begin[d], end[d], d))
			return NULL;
		shape[d] = end[d] - begin[d];
		base += begin[d] * stride[d];
	}
	return strided_view(t, base, t->rank, shape, stride, t->rank, shape);
}

/* Same elements in the same order under a new shape of equal size. */
TSI_API tsi_tensor *tsi_tensor_reshape(const tsi_tensor *t, size_t rank, const size_t *shape)
{
	char buf[160], buf2[160];
	size_t numel;

	if (!t)
		return NULL;
	if (rank > TSI_MAX_RANK || (rank && !shape)) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot reshape %s to rank %zu: at most %d dimensions",
		               tsi_tensor_describe(t), rank, TSI_MAX_RANK);
		return NULL;
	}
	if (!shape_numel(rank, shape, &numel) || numel != t->numel) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot reshape %s of shape %s (%zu elements) to shape %s",
		               tsi_tensor_describe(t), format_shape(buf, sizeof(buf), t->rank, t->shape),
		               t->numel, format_shape(buf2, sizeof(buf2), rank, shape));
		return NULL;
	}
	return same_order_view(t, rank, shape);
}

/* The elements as one dimension. */
TSI_API tsi_tensor *tsi_tensor_flatten(const tsi_tensor *t)
{
	size_t n;

	if (!t)
		return NULL;
	n = t->numel;
	return same_order_view(t, 1, &n);
}

/* Swaps the two dimensions of a matrix (a dim_shuffle by {1, 0}). */
TSI_API tsi_tensor *tsi_tensor_transpose(const tsi_tensor *t)
{
	static const size_t perm[2] = {1, 0};

	if (!t)
		return NULL;
	if (t->rank != 2) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot transpose %s: it has %zu dimension%s, not 2",
		               tsi_tensor_describe(t), (size_t)t->rank, t->rank == 1 ? "" : "s");
		return NULL;
	}
	return tsi_tensor_dim_shuffle(t, perm);
}

/* Dimension d of the result is dimension perm[d] of `t`: the source walked
 * with its strides permuted. */
TSI_API tsi_tensor *tsi_tensor_dim_shuffle(const tsi_tensor *t, const size_t *perm)
{
	size_t stride[TSI_MAX_RANK], wstride[TSI_MAX_RANK], shape[TSI_MAX_RANK];
	bool seen[TSI_MAX_RANK] = {false};

	if (!t)
		return NULL;
	if (t->rank && !perm) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "shuffling the dimensions of %s needs a permutation",
		               tsi_tensor_describe(t));
		return NULL;
	}
	for (size_t d = 0; d < t->rank; d++) {
		if (perm[d] >= t->rank || seen[perm[d]]) {
			tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
			               "dimension shuffle of %s: entry %zu (%zu) is not a permutation of "
			               "0..%zu",
			               tsi_tensor_describe(t), d, perm[d], (size_t)t->rank - 1);
			return NULL;
		}
		seen[perm[d]] = true;
	}
	row_major_strides(t, stride);
	for (size_t d = 0; d < t->rank; d++) {
		shape[d] = t->shape[perm[d]];
		wstride[d] = stride[perm[d]];
	}
	return strided_view(t, 0, t->rank, shape, wstride, t->rank, shape);
}

/* tsi_tensor_concat of two tensors. */
TSI_API tsi_tensor *tsi_tensor_concat2(const tsi_tensor *a, const tsi_tensor *b, size_t dim)
{
	tsi_tensor *ts[2];

	if (!a || !b)
		return NULL;
	ts[0] = (tsi_tensor *)a;
	ts[1] = (tsi_tensor *)b;
	return tsi_tensor_concat(ts, 2, dim);
}

/* Checks that ts[k] may be joined to ts[0] along `dim`. */
static bool check_concat_part(const tsi_tensor *first, const tsi_tensor *t, size_t k, size_t dim)
{
	char buf[160], buf2[160];

	if (t->graph->core != first->graph->core) {
		tsi_graph_fail(first->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot concatenate %s with %s (tensor %zu): they belong to different "
		               "graphs",
		               tsi_tensor_describe(first), tsi_tensor_describe(t), k);
		return false;
	}
	if (t->type != first->type) {
		tsi_graph_fail(first->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot concatenate %s of type %s with %s (tensor %zu) of type %s",
		               tsi_tensor_describe(first), tsi_type_name(first->type),
		               tsi_tensor_describe(t), k, tsi_type_name(t->type));
		return false;
	}
	bool ok = t->rank == first->rank;
	for (size_t d = 0; ok && d < t->rank; d++)
		if (d != dim && t->shape[d] != first->shape[d])
			ok = false;
	if (!ok) {
		tsi_graph_fail(first->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot concatenate %s of shape %s with %s (tensor %zu) of shape %s "
		               "along dimension %zu: the other dimensions differ",
		               tsi_tensor_describe(first),
		               format_shape(buf, sizeof(buf), first->rank, first->shape),
		               tsi_tensor_describe(t), k, format_shape(buf2, sizeof(buf2), t->rank, t->shape),
		               dim);
		return false;
	}
	return true;
}

/*
 * Joins tensors along `dim`. For each index of the dimensions before `dim`
 * (the "outer" index), the result holds tensor 0's block, then tensor 1's,
 * and so on; each block is a contiguous range of its tensor.
 */
TSI_API tsi_tensor *tsi_tensor_concat(tsi_tensor *const *ts, size_t n, size_t dim)
{
	size_t shape[TSI_MAX_RANK];
	size_t outer = 1;
	const tsi_tensor *first;
	region_builder b;
	region_locator *locs = NULL;
	tsi_tensor *out = NULL;

	if (!ts || n == 0) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_tensor_concat: no tensors to join");
		return NULL;
	}
	for (size_t k = 0; k < n; k++)
		if (!ts[k])
			return NULL;
	first = ts[0];
	if (dim >= first->rank) {
		tsi_graph_fail(first->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot concatenate %s along dimension %zu: it has %zu dimension%s",
		               tsi_tensor_describe(first), dim, (size_t)first->rank, first->rank == 1 ? "" : "s");
		return NULL;
	}
	memcpy(shape, first->shape, first->rank * sizeof(*shape));
	shape[dim] = 0;
	for (size_t k = 0; k < n; k++) {
		if (!check_concat_part(first, ts[k], k, dim))
			return NULL;
		shape[dim] += ts[k]->shape[dim];
	}
	for (size_t d = 0; d < dim; d++)
		outer *= shape[d];

	builder_init(&b, slicer_of(first->graph));
	locs = calloc(n, sizeof(*locs));
	if (!locs) {
		fail_oom(first);
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		if (!locator_init(&locs[k], ts[k])) {
			fail_oom(first);
			goto done;
		}
	}
	for (size_t o = 0; o < outer && !b.failed; o++) {
		for (size_t k = 0; k < n; k++) {
			size_t block = outer ? ts[k]->numel / outer : 0;
			emit_range(&b, &locs[k], o * block, block);
		}
	}
	out = finish_view(first, &b, first->rank, shape);
done:
	builder_free(&b);
	for (size_t k = 0; locs && k < n; k++)
		locator_free(&locs[k]);
	free(locs);
	return out;
}

/*
 * Repeats `t` `n` times along `dim`: the result's dimension `dim` is n
 * times longer and holds `t` n times over (n copies concatenated along
 * `dim`). Walked as `t` with an extra stride-0 dimension of size n inserted
 * before `dim`.
 */
TSI_API tsi_tensor *tsi_tensor_broadcast(const tsi_tensor *t, size_t n, size_t dim)
{
	size_t stride[TSI_MAX_RANK], wshape[WALK_MAX_RANK], wstride[WALK_MAX_RANK];
	size_t shape[TSI_MAX_RANK], numel;

	if (!t)
		return NULL;
	if (dim >= t->rank) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot broadcast %s along dimension %zu: it has %zu dimension%s",
		               tsi_tensor_describe(t), dim, (size_t)t->rank, t->rank == 1 ? "" : "s");
		return NULL;
	}
	memcpy(shape, t->shape, t->rank * sizeof(*shape));
	if (__builtin_mul_overflow(shape[dim], n, &shape[dim]) ||
	    !shape_numel(t->rank, shape, &numel)) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "broadcasting %s %zu times makes it too large", tsi_tensor_describe(t), n);
		return NULL;
	}
	row_major_strides(t, stride);
	for (size_t d = 0, w = 0; d < t->rank; d++) {
		if (d == dim) {
			wshape[w] = n;
			wstride[w] = 0;
			w++;
		}
		wshape[w] = t->shape[d];
		wstride[w] = stride[d];
		w++;
	}
	return strided_view(t, 0, t->rank + 1, wshape, wstride, t->rank, shape);
}

/* Inserts a dimension of size 1 before `dim` (== rank appends one); the
 * element order does not change. */
TSI_API tsi_tensor *tsi_tensor_expand(const tsi_tensor *t, size_t dim)
{
	size_t shape[TSI_MAX_RANK];

	if (!t)
		return NULL;
	if (dim > t->rank) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot insert a dimension before dimension %zu of %s: it has %zu",
		               dim, tsi_tensor_describe(t), (size_t)t->rank);
		return NULL;
	}
	if (t->rank + 1 > TSI_MAX_RANK) {
		tsi_graph_fail(t->graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot expand %s: it already has the maximum %d dimensions",
		               tsi_tensor_describe(t), TSI_MAX_RANK);
		return NULL;
	}
	for (size_t d = 0, s = 0; d <= t->rank; d++)
		shape[d] = d == dim ? 1 : t->shape[s++];
	return same_order_view(t, t->rank + 1, shape);
}
