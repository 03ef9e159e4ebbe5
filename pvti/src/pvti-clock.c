/*
 * Time stamps for tracepoints. CLOCK_MONOTONIC costs about 30 ns here and
 * rdtsc about 11, and a begin/end pair must stay within 50 ns, so
 * tracepoints read the time stamp counter and the writer converts ticks
 * to nanoseconds with one linear map per trace: the origin is taken when
 * the trace opens and the slope is measured once, against
 * CLOCK_MONOTONIC, over at least PVTI_CALIBRATION_NS, just before the
 * writer converts its first record. The counter is used only when the CPU
 * says it is invariant (constant rate, not stopped in sleep states);
 * otherwise ticks are CLOCK_MONOTONIC nanoseconds and the map is the
 * identity.
 */
#include "pvti-private.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool pvti_use_tsc;

/* CLOCK_MONOTONIC in ns. */
uint64_t pvti_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME in ns since the epoch. */
uint64_t pvti_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Decides the tick source (pvti.c calls this when the library loads,
 * before anything is traced): the TSC when CPUID leaf 0x80000007 reports
 * it invariant (EDX bit 8). PVTI_CLOCK=monotonic in the environment
 * forces the fallback (for tests of that path).
 */
void pvti_clock_init(void)
{
	const char *force = getenv("PVTI_CLOCK");

	pvti_use_tsc = false;
	if (force && strcmp(force, "monotonic") == 0)
		return;
#if defined(__x86_64__)
	{
		unsigned a, b, c, d;

		if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
		    __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)))
			pvti_use_tsc = true;
	}
#endif
}

/*
 * One simultaneous reading of ticks and CLOCK_MONOTONIC: the tick is
 * taken on both sides of the clock call and the tightest of a few tries
 * kept, so the pair is good to a few tens of ns.
 */
static void clock_pair(uint64_t *ticks, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t1 = pvti_ticks();
		uint64_t m = pvti_mono_ns();
		uint64_t t2 = pvti_ticks();

		if (t2 - t1 < best) {
			best = t2 - t1;
			*ticks = t1 + (t2 - t1) / 2;
			*mono = m;
		}
	}
}

/* Takes the origin (ticks, monotonic and wall time together). The
 * monotonic fallback needs no calibration. */
void pvti_clock_start(pvti_clock *clock)
{
	memset(clock, 0, sizeof(*clock));
	clock->tsc = pvti_use_tsc;
	clock->wall0_ns = pvti_wall_ns();
	if (clock->tsc) {
		clock_pair(&clock->tick0, &clock->mono0_ns);
	} else {
		clock->mono0_ns = pvti_mono_ns();
		clock->tick0 = clock->mono0_ns;
		clock->mult = 1ull << 32;
		clock->ticks_per_s = 1e9;
		clock->calibrated = true;
	}
}

/*
 * Measures ns per tick over the time since the origin. A few tens of ns of
 * uncertainty at each end over 20 ms or more gives a slope good to a few
 * ppm: a second-long span is off by microseconds at worst.
 */
void pvti_clock_calibrate(pvti_clock *clock)
{
	uint64_t ticks, mono;

	if (clock->calibrated)
		return;
	mono = pvti_mono_ns();
	if (mono < clock->mono0_ns + PVTI_CALIBRATION_NS) {
		uint64_t wait = clock->mono0_ns + PVTI_CALIBRATION_NS - mono;
		struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};

		while (nanosleep(&ts, &ts) != 0)
			;
	}
	clock_pair(&ticks, &mono);
	if (ticks <= clock->tick0 || mono <= clock->mono0_ns) {
		/* The counter did not move forward: fall back to 1 ns a tick
		 * rather than divide by zero (never seen with an invariant TSC). */
		clock->mult = 1ull << 32;
		clock->ticks_per_s = 1e9;
	} else {
		double ns_per_tick = (double)(mono - clock->mono0_ns) / (double)(ticks - clock->tick0);

		clock->mult = (uint64_t)(ns_per_tick * 4294967296.0 + 0.5);
		clock->ticks_per_s = 1e9 / ns_per_tick;
	}
	clock->calibrated = true;
}
