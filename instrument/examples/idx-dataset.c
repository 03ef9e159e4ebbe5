/*
 * The IDX loader and the synthetic data set of tutorial 5 (see
 * idx-dataset.h). Files come from outside the program, so nothing in them
 * is trusted: every header field is checked before it sizes anything, and
 * buffers grow with the bytes really decompressed rather than with what a
 * header claims.
 */
#include "idx-dataset.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Bytes asked of zlib per read; also the first size of a growing buffer. */
#define IDX_CHUNK ((size_t)1 << 20)

/* An open IDX file: the descriptor (owned by `gz` once it is opened) and
 * the path messages name. */
typedef struct idx_file {
	const char *path;
	int fd;
	gzFile gz;
} idx_file;

/*
 * Writes a message into the caller's buffer (when there is one) and
 * returns `code`, so that failures are one statement: return fail(...).
 */
__attribute__((format(printf, 4, 5)))
static int fail(char *err,          /* the caller's message buffer, or NULL */
                size_t err_size,    /* its size in bytes */
                int code,           /* the idx_error_code to return */
                const char *fmt, ...)
{
	va_list ap;

	if (err && err_size) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return code;
}

/*
 * Opens `path` for decompression. The file must be a regular file whose
 * first bytes are the gzip magic 1f 8b: zlib would otherwise read a plain
 * file transparently and the problem would surface later as a baffling
 * "bad magic number". `hint` (may be NULL) is appended to the message of
 * a missing file, to say where the file should have come from.
 */
static int idx_open(idx_file *f, const char *path, const char *hint, char *err, size_t err_size)
{
	unsigned char magic[2];
	struct stat st;
	ssize_t n;
	int rc;

	f->path = path;
	f->gz = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		if (errno == ENOENT)
			return fail(err, err_size, IDX_ERR_NOT_FOUND, "%s: not found%s%s%s", path,
			            hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
		return fail(err, err_size, IDX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	if (fstat(f->fd, &st) != 0) {
		rc = fail(err, err_size, IDX_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = fail(err, err_size, IDX_ERR_IO, "%s: not a regular file", path);
		goto out;
	}
	do
		n = pread(f->fd, magic, sizeof(magic), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = fail(err, err_size, IDX_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	if (n < 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
		rc = fail(err, err_size, IDX_ERR_NOT_GZIP,
		          "%s: not a gzip file (expected a gzip-compressed IDX file)", path);
		goto out;
	}
	f->gz = gzdopen(f->fd, "rb");
	if (!f->gz) {
		rc = fail(err, err_size, IDX_ERR_NO_MEMORY, "%s: cannot start decompressing", path);
		goto out;
	}
	f->fd = -1; /* gzclose closes it now */
	gzbuffer(f->gz, 128 * 1024);
	return IDX_OK;
out:
	close(f->fd);
	f->fd = -1;
	return rc;
}

/* Closes what idx_open opened; a file that is not open is ignored. */
static void idx_close(idx_file *f)
{
	if (f->gz)
		gzclose(f->gz);
	else if (f->fd >= 0)
		close(f->fd);
	f->gz = NULL;
	f->fd = -1;
}

/*
 * Reads up to `want` decompressed bytes into `buf`, stopping early only at
 * the end of the data; *got says how many arrived. A corrupt stream is an
 * error, but a stream cut short (zlib's "unexpected end of file") is just
 * an early end: the caller knows how much it needed and says "truncated".
 */
static int idx_read(idx_file *f, void *buf, size_t want, size_t *got, char *err,
                    size_t err_size)
{
	unsigned char *p = buf;
	int errnum;

	*got = 0;
	while (*got < want) {
		size_t ask = want - *got;
		int n;

		if (ask > IDX_CHUNK)
			ask = IDX_CHUNK;
		n = gzread(f->gz, p + *got, (unsigned)ask);
		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n == 0)
			break;
		const char *msg = gzerror(f->gz, &errnum);
		if (errnum == Z_BUF_ERROR)
			break;
		if (errnum == Z_ERRNO)
			return fail(err, err_size, IDX_ERR_IO, "%s: cannot read: %s", f->path,
			            strerror(errno));
		return fail(err, err_size, IDX_ERR_FORMAT, "%s: corrupt gzip data: %s", f->path,
		            msg && *msg ? msg : "unknown zlib error");
	}
	return IDX_OK;
}

/*
 * Reads and checks an IDX header: the magic number `magic` (whose low
 * byte is the number of dimensions) and the dimensions into dims[0..n).
 * `what` names the kind of file in messages ("images", "labels").
 */
static int idx_read_header(idx_file *f, uint32_t magic, uint32_t *dims, const char *what,
                           char *err, size_t err_size)
{
	size_t n_dims = magic & 0xff;
	unsigned char head[4 + 4 * 3];
	size_t want = 4 + 4 * n_dims, got;
	uint32_t found;
	int rc;

	rc = idx_read(f, head, want, &got, err, err_size);
	if (rc)
		return rc;
	if (got < 4)
		return fail(err, err_size, IDX_ERR_TRUNCATED,
		            "%s: truncated: expected a %zu-byte IDX header, got %zu bytes", f->path,
		            want, got);
	found = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
	if (found != magic)
		return fail(err, err_size, IDX_ERR_FORMAT,
		            "%s: bad magic number 0x%08x, expected 0x%08x (an IDX file of %s: "
		            "unsigned bytes in %zu dimension%s)",
		            f->path, (unsigned)found, (unsigned)magic, what, n_dims,
		            n_dims == 1 ? "" : "s");
	if (got < want)
		return fail(err, err_size, IDX_ERR_TRUNCATED,
		            "%s: truncated: expected a %zu-byte IDX header, got %zu bytes", f->path,
		            want, got);
	for (size_t d = 0; d < n_dims; d++) {
		const unsigned char *b = head + 4 + 4 * d;
		dims[d] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	}
	if (dims[0] > IDX_MAX_ITEMS)
		return fail(err, err_size, IDX_ERR_FORMAT,
		            "%s: the header declares %u %s, more than the %u this loader accepts",
		            f->path, (unsigned)dims[0], what, IDX_MAX_ITEMS);
	return IDX_OK;
}

/*
 * Reads exactly `want` payload bytes into a new buffer (*out, the caller
 * frees it). The buffer starts small and doubles as data arrives, so a
 * header that promises gigabytes the file does not hold costs nothing.
 * `what` names the payload in the "truncated" message.
 */
static int idx_read_payload(idx_file *f, size_t want, const char *what, unsigned char **out,
                            char *err, size_t err_size)
{
	unsigned char *buf = NULL;
	size_t cap = 0, have = 0;
	int rc = IDX_OK;

	*out = NULL;
	while (have < want) {
		size_t got;

		if (have == cap) {
			size_t next = cap ? cap * 2 : IDX_CHUNK;
			unsigned char *grown;

			if (next > want)
				next = want;
			grown = realloc(buf, next);
			if (!grown) {
				rc = fail(err, err_size, IDX_ERR_NO_MEMORY,
				          "%s: out of memory reading %zu bytes of %s", f->path, want, what);
				goto out;
			}
			buf = grown;
			cap = next;
		}
		rc = idx_read(f, buf + have, cap - have, &got, err, err_size);
		if (rc)
			goto out;
		have += got;
		if (have < cap)
			break; /* the data ended */
	}
	if (have < want) {
		rc = fail(err, err_size, IDX_ERR_TRUNCATED,
		          "%s: truncated: expected %zu bytes of %s, got %zu", f->path, want, what, have);
		goto out;
	}
	*out = buf;
	buf = NULL;
out:
	free(buf);
	return rc;
}

/*
 * Checks that a file read to the count its header declares ends there.
 * Reading past the end also makes zlib verify the gzip trailer (CRC and
 * length), which catches a corrupted last block.
 */
static int idx_check_end(idx_file *f, char *err, size_t err_size)
{
	unsigned char extra;
	size_t got;
	int rc = idx_read(f, &extra, 1, &got, err, err_size);

	if (rc)
		return rc;
	if (got)
		return fail(err, err_size, IDX_ERR_FORMAT,
		            "%s: more data than its header declares", f->path);
	return IDX_OK;
}

/* The loader behind idx_dataset_load and idx_dataset_load_dir; `hint`
 * goes into the message of a missing file. */
static int load_pair(idx_dataset *out, const char *images_path, const char *labels_path,
                     size_t limit, const char *hint, char *err, size_t err_size)
{
	idx_file images = {images_path, -1, NULL}, labels = {labels_path, -1, NULL};
	unsigned char *label_bytes = NULL, *pixel_bytes = NULL;
	uint32_t image_dims[3] = {0}, label_dims[1] = {0};
	size_t count, n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!images_path || !labels_path)
		return fail(err, err_size, IDX_ERR_INVALID_ARGUMENT, "no file name given");

	/* Both headers first, so that a mismatch is found before any payload. */
	rc = idx_open(&images, images_path, hint, err, err_size);
	if (rc)
		goto out;
	rc = idx_read_header(&images, IDX_MAGIC_IMAGES, image_dims, "images", err, err_size);
	if (rc)
		goto out;
	rc = idx_open(&labels, labels_path, hint, err, err_size);
	if (rc)
		goto out;
	rc = idx_read_header(&labels, IDX_MAGIC_LABELS, label_dims, "labels", err, err_size);
	if (rc)
		goto out;
	if (image_dims[1] != IDX_ROWS || image_dims[2] != IDX_COLS) {
		rc = fail(err, err_size, IDX_ERR_FORMAT,
		          "%s: images are %ux%u pixels, expected %ux%u", images_path,
		          (unsigned)image_dims[1], (unsigned)image_dims[2], IDX_ROWS, IDX_COLS);
		goto out;
	}
	count = image_dims[0];
	if (count != label_dims[0]) {
		rc = fail(err, err_size, IDX_ERR_MISMATCH, "%s holds %zu images but %s holds %u labels",
		          images_path, count, labels_path, (unsigned)label_dims[0]);
		goto out;
	}
	if (count == 0) {
		rc = fail(err, err_size, IDX_ERR_FORMAT, "%s: holds no images", images_path);
		goto out;
	}
	n = limit && limit < count ? limit : count;

	rc = idx_read_payload(&labels, n, "labels", &label_bytes, err, err_size);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (label_bytes[i] >= IDX_CLASSES) {
			rc = fail(err, err_size, IDX_ERR_FORMAT,
			          "%s: label %u of item %zu is not a class (0 to %d)", labels_path,
			          label_bytes[i], i, IDX_CLASSES - 1);
			goto out;
		}
	}
	/* n <= IDX_MAX_ITEMS, so n * IDX_PIXELS * sizeof(float) fits a 64-bit
	 * size_t; a 32-bit one needs the check. */
	if (n > SIZE_MAX / IDX_PIXELS / sizeof(float)) {
		rc = fail(err, err_size, IDX_ERR_NO_MEMORY, "%s: %zu images do not fit in memory",
		          images_path, n);
		goto out;
	}
	rc = idx_read_payload(&images, n * IDX_PIXELS, "pixels", &pixel_bytes, err, err_size);
	if (rc)
		goto out;
	if (n == count) {
		rc = idx_check_end(&labels, err, err_size);
		if (rc)
			goto out;
		rc = idx_check_end(&images, err, err_size);
		if (rc)
			goto out;
	}

	out->pixels = malloc(n * IDX_PIXELS * sizeof(float));
	out->labels = malloc(n * sizeof(uint32_t));
	if (!out->pixels || !out->labels) {
		rc = fail(err, err_size, IDX_ERR_NO_MEMORY, "%s: out of memory for %zu images",
		          images_path, n);
		goto out;
	}
	for (size_t i = 0; i < n * IDX_PIXELS; i++)
		out->pixels[i] = (float)pixel_bytes[i] / 255.0f;
	for (size_t i = 0; i < n; i++)
		out->labels[i] = label_bytes[i];
	out->count = n;
	rc = IDX_OK;
out:
	if (rc)
		idx_dataset_free(out);
	free(label_bytes);
	free(pixel_bytes);
	idx_close(&images);
	idx_close(&labels);
	return rc;
}

/* Loads a pair of IDX files (see idx-dataset.h). */
int idx_dataset_load(idx_dataset *out, const char *images_path, const char *labels_path,
                     size_t limit, char *err, size_t err_size)
{
	return load_pair(out, images_path, labels_path, limit, NULL, err, err_size);
}

/* "dir/name" in a new string (the caller frees it), or NULL on OOM. */
static char *join_path(const char *dir, const char *name)
{
	size_t len = strlen(dir) + 1 + strlen(name) + 1;
	char *path = malloc(len);

	if (path)
		snprintf(path, len, "%s/%s", dir, name);
	return path;
}

/* Loads the training or test half of an MNIST-style directory, with the
 * file names every MNIST-style set uses. */
int idx_dataset_load_dir(idx_dataset *out, const char *dir, bool train, size_t limit, char *err,
                         size_t err_size)
{
	char *images, *labels;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!dir)
		dir = IDX_FASHION_MNIST_DIR;
	images = join_path(dir, train ? "train-images-idx3-ubyte.gz" : "t10k-images-idx3-ubyte.gz");
	labels = join_path(dir, train ? "train-labels-idx1-ubyte.gz" : "t10k-labels-idx1-ubyte.gz");
	if (!images || !labels)
		rc = fail(err, err_size, IDX_ERR_NO_MEMORY, "out of memory");
	else
		rc = load_pair(out, images, labels, limit,
		               "install the Debian package dataset-fashion-mnist or pass --data-dir",
		               err, err_size);
	free(images);
	free(labels);
	return rc;
}

/* --- The synthetic set ------------------------------------------------------ */

/* SplitMix64: a tiny generator whose output depends only on its seed, so
 * the synthetic set is the same on every machine and C library. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A uniform number in [0, 1) from the top 53 bits. */
static double next_unit(uint64_t *state)
{
	return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* A standard normal number (Box-Muller; one of the pair is dropped, which
 * keeps the stream simple and costs nothing that matters here). */
static double next_normal(uint64_t *state)
{
	double u1 = next_unit(state), u2 = next_unit(state);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/*
 * Each class is a random prototype image; an item is its prototype plus
 * normal noise of standard deviation 0.5 (half the pixel range), clamped
 * to [0, 1]. Single pixels are then mostly noise, so a model must combine
 * many of them, as it must on real images, yet the classes are linearly
 * separable with a wide margin across 784 pixels.
 */
int idx_dataset_synthetic(idx_dataset *out, size_t count, uint64_t seed, unsigned split,
                          char *err, size_t err_size)
{
	float *protos = NULL;
	uint64_t state;
	int rc;

	memset(out, 0, sizeof(*out));
	if (count == 0 || count > IDX_MAX_ITEMS)
		return fail(err, err_size, IDX_ERR_INVALID_ARGUMENT,
		            "synthetic data set: %zu items asked, expected 1 to %u", count,
		            IDX_MAX_ITEMS);
	protos = malloc((size_t)IDX_CLASSES * IDX_PIXELS * sizeof(float));
	out->pixels = malloc(count * IDX_PIXELS * sizeof(float));
	out->labels = malloc(count * sizeof(uint32_t));
	if (!protos || !out->pixels || !out->labels) {
		rc = fail(err, err_size, IDX_ERR_NO_MEMORY,
		          "synthetic data set: out of memory for %zu items", count);
		goto out;
	}
	state = seed;
	for (size_t i = 0; i < (size_t)IDX_CLASSES * IDX_PIXELS; i++)
		protos[i] = (float)next_unit(&state);
	/* A separate stream per split: the prototypes are shared, the items
	 * are not. */
	state = seed ^ (0xd1b54a32d192ed03u * ((uint64_t)split + 1));
	for (size_t i = 0; i < count; i++) {
		uint32_t label = (uint32_t)(next_u64(&state) % IDX_CLASSES);
		const float *proto = protos + (size_t)label * IDX_PIXELS;
		float *px = out->pixels + i * IDX_PIXELS;

		out->labels[i] = label;
		for (size_t p = 0; p < IDX_PIXELS; p++) {
			double v = proto[p] + 0.5 * next_normal(&state);
			px[p] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
		}
	}
	out->count = count;
	rc = IDX_OK;
out:
	if (rc)
		idx_dataset_free(out);
	free(protos);
	return rc;
}

/* Frees the set's arrays; safe on a zeroed or already freed set. */
void idx_dataset_free(idx_dataset *set)
{
	if (!set)
		return;
	free(set->pixels);
	free(set->labels);
	memset(set, 0, sizeof(*set));
}
