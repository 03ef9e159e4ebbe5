/*
 * Device element types: sizes, Poplar's names, IEEE binary16 conversion,
 * and typed element access used by the engine, PrintTensor and the ops.
 */
#include "../ipu-private.h"

#include <math.h>
#include <string.h>

#include "vocabulary.h" /* db-schema/ */

/* Bytes of each type; their names are the format's vocabulary
 * (db-schema/vocabulary.h), as variable.type stores them. */
static const size_t type_size[TSI_TYPE_COUNT] = {
	[TSI_FLOAT] = 4, [TSI_HALF] = 2,           [TSI_INT] = 4,
	[TSI_UNSIGNED_INT] = 4, [TSI_SHORT] = 2, [TSI_UNSIGNED_SHORT] = 2,
	[TSI_CHAR] = 1,  [TSI_UNSIGNED_CHAR] = 1, [TSI_BOOL] = 1,
};

TSI_API size_t tsi_type_size(tsi_type type)
{
	return (unsigned)type < TSI_TYPE_COUNT ? type_size[type] : 0;
}

TSI_API const char *tsi_type_name(tsi_type type)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_DATA_TYPE, (int)type);

	return name ? name : "invalid";
}

/*
 * float → binary16, rounding to nearest even; overflow gives infinity,
 * NaN stays NaN (quiet), tiny values become subnormals or zero.
 */
TSI_API uint16_t tsi_half_from_float(float value)
{
	uint32_t f;
	memcpy(&f, &value, sizeof(f));
	uint32_t sign = (f >> 16) & 0x8000u;
	uint32_t exp = (f >> 23) & 0xffu;
	uint32_t mant = f & 0x7fffffu;

	if (exp == 0xff) /* inf or NaN */
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
	int32_t e = (int32_t)exp - 127 + 15;
	if (e >= 0x1f)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		/* Subnormal: shift the mantissa with its implicit bit. */
		mant |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t half = mant >> shift;
		uint32_t rem = mant & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
	uint32_t rem = mant & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
		half++; /* may carry into the exponent, which is right */
	return (uint16_t)half;
}

/* binary16 → float, exactly. */
TSI_API float tsi_half_to_float(uint16_t bits)
{
	uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
	uint32_t exp = (bits >> 10) & 0x1fu;
	uint32_t mant = bits & 0x3ffu;
	uint32_t f;
	float out;

	if (exp == 0) {
		if (mant == 0) {
			f = sign;
		} else {
			/* Normalise the subnormal. */
			int e = -1;
			do {
				e++;
				mant <<= 1;
			} while (!(mant & 0x400u));
			f = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
		}
	} else if (exp == 0x1f) {
		f = sign | 0x7f800000u | (mant << 13);
	} else {
		f = sign | ((exp - 15 + 127) << 23) | (mant << 13);
	}
	memcpy(&out, &f, sizeof(out));
	return out;
}

TSI_API double tsi_type_load(tsi_type type, const void *base, size_t index)
{
	switch (type) {
	case TSI_FLOAT: return ((const float *)base)[index];
	case TSI_HALF: return tsi_half_to_float(((const uint16_t *)base)[index]);
	case TSI_INT: return ((const int32_t *)base)[index];
	case TSI_UNSIGNED_INT: return ((const uint32_t *)base)[index];
	case TSI_SHORT: return ((const int16_t *)base)[index];
	case TSI_UNSIGNED_SHORT: return ((const uint16_t *)base)[index];
	case TSI_CHAR: return ((const int8_t *)base)[index];
	case TSI_UNSIGNED_CHAR: return ((const uint8_t *)base)[index];
	case TSI_BOOL: return ((const uint8_t *)base)[index] ? 1.0 : 0.0;
	default: return 0.0;
	}
}

/* Converts a double to an integer type, saturating instead of invoking
 * undefined behaviour for out-of-range or NaN values. */
static int64_t to_int(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	if (v < lo)
		return (int64_t)lo;
	if (v > hi)
		return (int64_t)hi;
	return (int64_t)v;
}

TSI_API void tsi_type_store(tsi_type type, void *base, size_t index, double value)
{
	switch (type) {
	case TSI_FLOAT: ((float *)base)[index] = (float)value; break;
	case TSI_HALF: ((uint16_t *)base)[index] = tsi_half_from_float((float)value); break;
	case TSI_INT: ((int32_t *)base)[index] = (int32_t)to_int(value, INT32_MIN, INT32_MAX); break;
	case TSI_UNSIGNED_INT: ((uint32_t *)base)[index] = (uint32_t)to_int(value, 0, UINT32_MAX); break;
	case TSI_SHORT: ((int16_t *)base)[index] = (int16_t)to_int(value, INT16_MIN, INT16_MAX); break;
	case TSI_UNSIGNED_SHORT: ((uint16_t *)base)[index] = (uint16_t)to_int(value, 0, UINT16_MAX); break;
	case TSI_CHAR: ((int8_t *)base)[index] = (int8_t)to_int(value, INT8_MIN, INT8_MAX); break;
	case TSI_UNSIGNED_CHAR: ((uint8_t *)base)[index] = (uint8_t)to_int(value, 0, UINT8_MAX); break;
	case TSI_BOOL: ((uint8_t *)base)[index] = value != 0.0; break;
	default: break;
	}
}
