/*
 * The name -> colour rule (tsc-palette.h). The fixed names' colours are
 * GNOME's palette at a middle lightness, which reads on Adwaita's light
 * and dark backgrounds alike; the program kinds keep the colours the
 * Graph Analyser always gave them, and the memory categories take the
 * memory chart's palette in printProfileSummary's order (the largest
 * usually first), so neighbours in a stack differ.
 */
#include <tilescope/tsc-palette.h>

#include <string.h>

#define HEX(v) {((v) >> 16 & 0xff) / 255.0f, ((v) >> 8 & 0xff) / 255.0f, ((v) & 0xff) / 255.0f, 1}

/* Names are hashed up to this many bytes: a 16 KiB name costs no more
 * than a short one in a frame that colours thousands of spans. */
#define HASH_BYTES 256

static const struct fixed {
	const char *name;
	GdkRGBA colour;
} fixed[] = {
	/* Program and step kinds (the Graph Analyser's Program Tree, Execution
	 * Trace and BSP view). */
	{"Compute", HEX(0x3584e4)},
	{"Exchange", HEX(0xff7800)},
	{"Sync", HEX(0xc061cb)},
	{"Control", HEX(0x9a9996)},
	/* Memory categories, by their names in the file. */
	{"variable", HEX(0x3b7dd8)},
	{"constant", HEX(0xe5a50a)},
	{"message", HEX(0x2ec27e)},
	{"globalMessage", HEX(0xc061cb)},
	{"hostMessage", HEX(0xf66151)},
	{"rearrangement", HEX(0x1c9f9f)},
	{"outputEdge", HEX(0x986a44)},
	{"hostExchangePacketHeader", HEX(0x8ff0a4)},
	{"globalExchangePacketHeader", HEX(0x99c1f1)},
	{"stack", HEX(0xdc8add)},
	{"vertexInstanceState", HEX(0xf8e45c)},
	{"copyDescriptor", HEX(0xffbe6f)},
	{"vectorListDescriptor", HEX(0xa51d2d)},
	{"vertexFieldData", HEX(0x613583)},
	{"sharedDataStorage", HEX(0x26a269)},
	{"multiple", HEX(0x1a5fb4)},
	{"instrumentationResults", HEX(0xc64600)},
	{"controlId", HEX(0x5e5c64)},
	{"controlTable", HEX(0x77767b)},
	{"controlCode", HEX(0xe01b24)},
	{"vertexCode", HEX(0x33d17a)},
	{"sharedCodeStorage", HEX(0x9141ac)},
	{"internalExchangeCode", HEX(0xcdab8f)},
	{"globalExchangeCode", HEX(0x62a0ea)},
	{"hostExchangeCode", HEX(0xff7800)},
	/* Regions, liveness and the gaps between variables. */
	{"Interleaved", HEX(0x3b7dd8)},
	{"Non-interleaved", HEX(0xe5a50a)},
	{"Overflowed", HEX(0xc01c28)},
	{"Always live", HEX(0xc061cb)},
	{"Not always live", HEX(0x2ec27e)},
	{"Gaps", HEX(0x9a9996)},
};

/* Hashed names: pale for a light theme (dark text on them), deep for a
 * dark one (light text). */
static const GdkRGBA light[TSC_PALETTE_HASHED] = {
	HEX(0x8fb8de), HEX(0xa3d9a5), HEX(0xf6c28b), HEX(0xd8a7d0), HEX(0xf29e9e),
	HEX(0x9fd8d8), HEX(0xd9d68f), HEX(0xb8b0e8), HEX(0xc9c0a8), HEX(0xe8b0c8),
};
static const GdkRGBA darkp[TSC_PALETTE_HASHED] = {
	HEX(0x2f5f8a), HEX(0x2f6f3a), HEX(0x8a5a24), HEX(0x6a3d68), HEX(0x8a3535),
	HEX(0x2d6b6b), HEX(0x6b6826), HEX(0x4a4388), HEX(0x5f5646), HEX(0x7a3d58),
};

/* FNV-1a (32 bits) of at most HASH_BYTES of `s`. */
static guint32 fnv1a(const char *s)
{
	guint32 h = 2166136261u;

	for (size_t i = 0; s[i] && i < HASH_BYTES; i++) {
		h ^= (guint8)s[i];
		h *= 16777619u;
	}
	return h;
}

/* The fixed names' hashes, computed once: a lookup compares integers, and
 * strings only when a hash matches. */
static const guint32 *fixed_hashes(void)
{
	static guint32 hashes[G_N_ELEMENTS(fixed)];
	static gsize done;

	if (g_once_init_enter(&done)) {
		for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
			hashes[i] = fnv1a(fixed[i].name);
		g_once_init_leave(&done, 1);
	}
	return hashes;
}

guint tsc_palette_slot(const char *name)
{
	const guint32 *hashes = fixed_hashes();
	guint32 h;

	if (!name)
		name = "";
	h = fnv1a(name);
	for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
		if (hashes[i] == h && strcmp(fixed[i].name, name) == 0)
			return TSC_PALETTE_HASHED + (guint)i;
	return h % TSC_PALETTE_HASHED;
}

const GdkRGBA *tsc_palette_colour(const char *name, gboolean dark)
{
	guint slot = tsc_palette_slot(name);

	if (slot >= TSC_PALETTE_HASHED)
		return &fixed[slot - TSC_PALETTE_HASHED].colour;
	return dark ? &darkp[slot] : &light[slot];
}

GdkRGBA tsc_palette_ink(const GdkRGBA *bg)
{
	/* Relative luminance, roughly (sRGB weights on the stored values). */
	double lum = 0.2126 * bg->red + 0.7152 * bg->green + 0.0722 * bg->blue;

	return lum > 0.5 ? (GdkRGBA){0.1f, 0.1f, 0.1f, 1} : (GdkRGBA){0.95f, 0.95f, 0.95f, 1};
}
