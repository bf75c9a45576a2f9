// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the DCQCN core (sroce_cc.c, sroce_cc_params.c), driven by
 * a fake clock.
 *
 * The RP tables below were produced by the reference model, not by this
 * code: they are the output of
 *
 *   python3 kunit/sroce_cc_test_vectors.py /work/shared/reference/model
 *
 * which runs the reaction-point closures of dcqcn_model.py (catch_up,
 * on_cnp, increase) step by step and prints Rc and Rt in kb/s and alpha in
 * 1/1024 after each event, rounded half up. The few cases the model cannot
 * express (rp_gd 10, rp_clamp_tgt_rate_ati 0, rp_max_rate, the byte counter
 * switched off) are worked out by hand next to each case.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/time64.h>

#include "sroce_cc.h"
#include "sroce_trace.h"

/* Arbitrary non-zero origin of the fake clock. */
#define TEST_T0_NS	(5ULL * NSEC_PER_SEC)

enum sroce_cc_test_op {
	STEP_CNP,	/* a CNP arrives */
	STEP_TX,	/* a packet of .bytes is sent */
	STEP_RATE,	/* the rate is read */
};

struct sroce_cc_test_step {
	enum sroce_cc_test_op op;
	u32 t_us;
	u32 bytes;
	u32 verdict;	/* for STEP_CNP */
	u64 rc_kbps;
	u64 rt_kbps;
	u32 alpha;
};

/*
 * line 40000 Mb/s,
 * defaults
 */
static const struct sroce_cc_test_step rp_defaults[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 20019531, 40000000, 1023 },
	{ STEP_CNP, 2, 0, SROCE_CC_CNP_IGNORED, 20019531, 40000000, 1018 },
	{ STEP_RATE, 3, 0, 0, 20019531, 40000000, 1013 },
	{ STEP_CNP, 10, 0, SROCE_CC_CNP_HANDLED, 10450462, 40000000, 979 },
	{ STEP_RATE, 11, 0, 0, 10450462, 40000000, 979 },
	{ STEP_RATE, 100, 0, 0, 10450462, 40000000, 633 },
	{ STEP_RATE, 309, 0, 0, 10450462, 40000000, 228 },
	{ STEP_RATE, 310, 0, 0, 25225231, 40000000, 227 },
	{ STEP_RATE, 609, 0, 0, 25225231, 40000000, 52 },
	{ STEP_RATE, 610, 0, 0, 32612615, 40000000, 52 },
	{ STEP_RATE, 910, 0, 0, 36306308, 40000000, 12 },
	{ STEP_RATE, 30010, 0, 0, 40000000, 40000000, 0 },
	{ STEP_RATE, 3000010, 0, 0, 40000000, 40000000, 0 },
	{ STEP_CNP, 3000010, 0, SROCE_CC_CNP_HANDLED, 40000000, 40000000, 0 },
};

/*
 * line 10000 Mb/s,
 * rp_ai_rate=40,
 * rp_byte_reset=0,
 * rp_threshold=3,
 * rp_time_reset=55
 */
static const struct sroce_cc_test_step rp_fast_recovery[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 5004883, 10000000, 1023 },
	{ STEP_RATE, 55, 0, 0, 7502441, 10000000, 785 },
	{ STEP_RATE, 110, 0, 0, 8751221, 10000000, 600 },
	{ STEP_RATE, 165, 0, 0, 9375610, 10000000, 458 },
	{ STEP_RATE, 220, 0, 0, 9687805, 10000000, 350 },
	{ STEP_RATE, 275, 0, 0, 9843903, 10000000, 268 },
	{ STEP_RATE, 1100, 0, 0, 9999995, 10000000, 5 },
};

/*
 * line 10000 Mb/s,
 * rp_ai_rate=20,
 * rp_byte_reset=16,
 * rp_hai_rate=200,
 * rp_rate_to_set_on_first_cnp=1000,
 * rp_threshold=2,
 * rp_time_reset=100
 */
static const struct sroce_cc_test_step rp_hyper[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 1000000, 1000000, 1023 },
	{ STEP_TX, 10, 1024, 0, 1000000, 1000000, 979 },
	{ STEP_TX, 20, 1024, 0, 1000000, 1000000, 932 },
	{ STEP_TX, 30, 1024, 0, 1010000, 1020000, 888 },
	{ STEP_RATE, 100, 0, 0, 1025000, 1040000, 630 },
	{ STEP_RATE, 200, 0, 0, 1042500, 1060000, 386 },
	{ STEP_TX, 210, 1024, 0, 1061250, 1080000, 368 },
	{ STEP_RATE, 300, 0, 0, 1170625, 1280000, 237 },
	{ STEP_TX, 310, 1024, 0, 1325313, 1480000, 225 },
	{ STEP_TX, 320, 3072, 0, 1885664, 2080000, 215 },
	{ STEP_RATE, 400, 0, 0, 2082832, 2280000, 145 },
	{ STEP_RATE, 700, 0, 0, 2680354, 2880000, 33 },
	{ STEP_TX, 710, 4096, 0, 3480022, 3680000, 32 },
};

/*
 * line 10000 Mb/s,
 * rp_clamp_tgt_rate=0
 */
static const struct sroce_cc_test_step rp_clamp0[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 5004883, 10000000, 1023 },
	{ STEP_CNP, 10, 0, SROCE_CC_CNP_HANDLED, 2612615, 10000000, 979 },
	{ STEP_RATE, 310, 0, 0, 6306308, 10000000, 227 },
	{ STEP_CNP, 320, 0, SROCE_CC_CNP_HANDLED, 5641915, 6306308, 216 },
	{ STEP_RATE, 620, 0, 0, 5974111, 6306308, 51 },
};

/*
 * line 10000 Mb/s,
 * rp_clamp_tgt_rate=1
 */
static const struct sroce_cc_test_step rp_clamp1[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 5004883, 10000000, 1023 },
	{ STEP_CNP, 10, 0, SROCE_CC_CNP_HANDLED, 2612615, 5004883, 979 },
	{ STEP_RATE, 310, 0, 0, 3808749, 5004883, 227 },
	{ STEP_CNP, 320, 0, SROCE_CC_CNP_HANDLED, 3407483, 3808749, 216 },
	{ STEP_RATE, 620, 0, 0, 3608116, 3808749, 51 },
};

/*
 * line 10000 Mb/s,
 * rp_rate_to_set_on_first_cnp=2000
 */
static const struct sroce_cc_test_step rp_first_cnp[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 2000000, 2000000, 1023 },
	{ STEP_RATE, 300, 0, 0, 2000000, 2000000, 237 },
	{ STEP_RATE, 600, 0, 0, 2002500, 2005000, 55 },
	{ STEP_CNP, 700, 0, SROCE_CC_CNP_HANDLED, 1969826, 2002500, 33 },
	{ STEP_RATE, 1000, 0, 0, 1986163, 2002500, 9 },
};

/*
 * line 1000 Mb/s,
 * rp_min_dec_fac=80,
 * rp_min_rate=100
 */
static const struct sroce_cc_test_step rp_floor[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 800000, 1000000, 1023 },
	{ STEP_CNP, 5, 0, SROCE_CC_CNP_HANDLED, 640000, 1000000, 1003 },
	{ STEP_CNP, 10, 0, SROCE_CC_CNP_HANDLED, 512000, 1000000, 984 },
	{ STEP_CNP, 15, 0, SROCE_CC_CNP_HANDLED, 409600, 1000000, 965 },
	{ STEP_CNP, 20, 0, SROCE_CC_CNP_HANDLED, 327680, 1000000, 947 },
	{ STEP_CNP, 25, 0, SROCE_CC_CNP_HANDLED, 262144, 1000000, 929 },
	{ STEP_CNP, 30, 0, SROCE_CC_CNP_HANDLED, 209715, 1000000, 911 },
	{ STEP_CNP, 35, 0, SROCE_CC_CNP_HANDLED, 167772, 1000000, 894 },
	{ STEP_CNP, 40, 0, SROCE_CC_CNP_HANDLED, 134218, 1000000, 877 },
	{ STEP_CNP, 45, 0, SROCE_CC_CNP_HANDLED, 107374, 1000000, 861 },
	{ STEP_CNP, 50, 0, SROCE_CC_CNP_HANDLED, 100000, 1000000, 845 },
	{ STEP_CNP, 55, 0, SROCE_CC_CNP_HANDLED, 100000, 1000000, 829 },
	{ STEP_CNP, 60, 0, SROCE_CC_CNP_HANDLED, 100000, 1000000, 814 },
};

/*
 * line 40000 Mb/s,
 * rp_dce_tcp_g=1020,
 * rp_dce_tcp_rtt=55,
 * rp_rate_reduce_monitor_period=50
 */
static const struct sroce_cc_test_step rp_alpha[] = {
	{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 20019531, 40000000, 1023 },
	{ STEP_RATE, 54, 0, 0, 20019531, 40000000, 1023 },
	{ STEP_RATE, 55, 0, 0, 20019531, 40000000, 1023 },
	{ STEP_RATE, 110, 0, 0, 20019531, 40000000, 1019 },
	{ STEP_CNP, 120, 0, SROCE_CC_CNP_HANDLED, 10058565, 40000000, 1019 },
	{ STEP_RATE, 175, 0, 0, 10058565, 40000000, 1019 },
	{ STEP_RATE, 1000, 0, 0, 32514641, 40000000, 961 },
	{ STEP_RATE, 100000, 0, 0, 40000000, 40000000, 1 },
};

struct sroce_cc_test_param {
	const char *name;
	u32 val;
};

static void sroce_cc_test_setup(struct kunit *test, struct sroce_cc_params *p,
				const struct sroce_cc_test_param *prm,
				unsigned int nprm)
{
	unsigned int i;

	sroce_cc_params_init_defaults(p);
	for (i = 0; i < nprm; i++)
		KUNIT_ASSERT_EQ(test, sroce_cc_param_set(p, prm[i].name,
							 prm[i].val), 0);
}

static void sroce_cc_test_run(struct kunit *test, u32 line_mbps,
			      const struct sroce_cc_test_param *prm,
			      unsigned int nprm,
			      const struct sroce_cc_test_step *steps,
			      unsigned int nsteps)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp_info info;
	struct sroce_cc_rp rp;
	unsigned int i;

	sroce_cc_test_setup(test, &p, prm, nprm);
	sroce_cc_rp_init(&rp, line_mbps);
	for (i = 0; i < nsteps; i++) {
		const struct sroce_cc_test_step *s = &steps[i];
		u64 now = TEST_T0_NS + (u64)s->t_us * NSEC_PER_USEC;

		switch (s->op) {
		case STEP_CNP:
			KUNIT_EXPECT_EQ_MSG(test, (u32)sroce_cc_rp_on_cnp(&rp, &p, now),
					    s->verdict, "step %u", i);
			break;
		case STEP_TX:
			sroce_cc_rp_on_tx(&rp, &p, s->bytes, now);
			break;
		case STEP_RATE:
			break;
		}
		sroce_cc_rp_rate(&rp, &p, now);
		sroce_cc_rp_get_info(&rp, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.rc_kbps, s->rc_kbps, "Rc, step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, info.rt_kbps, s->rt_kbps, "Rt, step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, info.alpha, s->alpha, "alpha, step %u", i);
	}
}

static const struct sroce_cc_test_param no_params[] = {};

/* mlx5 defaults: cut, ignored CNP, alpha decay, F = 1, long catch-up. */
static void sroce_cc_rp_defaults_test(struct kunit *test)
{
	sroce_cc_test_run(test, 40000, no_params, 0, rp_defaults,
			  ARRAY_SIZE(rp_defaults));
}

static void sroce_cc_rp_fast_recovery_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_threshold", 3 }, { "rp_time_reset", 55 },
		{ "rp_ai_rate", 40 }, { "rp_byte_reset", 0 },
	};

	sroce_cc_test_run(test, 10000, prm, ARRAY_SIZE(prm), rp_fast_recovery,
			  ARRAY_SIZE(rp_fast_recovery));
}

static void sroce_cc_rp_hyper_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_threshold", 2 }, { "rp_time_reset", 100 },
		{ "rp_byte_reset", 16 }, { "rp_ai_rate", 20 },
		{ "rp_hai_rate", 200 }, { "rp_rate_to_set_on_first_cnp", 1000 },
	};

	sroce_cc_test_run(test, 10000, prm, ARRAY_SIZE(prm), rp_hyper,
			  ARRAY_SIZE(rp_hyper));
}

static void sroce_cc_rp_clamp_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm0[] = {
		{ "rp_clamp_tgt_rate", 0 },
	};
	static const struct sroce_cc_test_param prm1[] = {
		{ "rp_clamp_tgt_rate", 1 },
	};

	sroce_cc_test_run(test, 10000, prm0, ARRAY_SIZE(prm0), rp_clamp0,
			  ARRAY_SIZE(rp_clamp0));
	sroce_cc_test_run(test, 10000, prm1, ARRAY_SIZE(prm1), rp_clamp1,
			  ARRAY_SIZE(rp_clamp1));
}

/*
 * rp_clamp_tgt_rate_ati = 0: the timer increase at 310 us no longer makes
 * the cut at 320 us clamp Rt, so Rt stays at the line rate; Rc and alpha
 * are those of rp_clamp0 (by hand from the model's rows).
 */
static void sroce_cc_rp_clamp_ati_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_clamp_tgt_rate_ati", 0 },
	};
	static const struct sroce_cc_test_step steps[] = {
		{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 5004883, 10000000, 1023 },
		{ STEP_CNP, 10, 0, SROCE_CC_CNP_HANDLED, 2612615, 10000000, 979 },
		{ STEP_RATE, 310, 0, 0, 6306308, 10000000, 227 },
		{ STEP_CNP, 320, 0, SROCE_CC_CNP_HANDLED, 5641915, 10000000, 216 },
	};

	sroce_cc_test_run(test, 10000, prm, ARRAY_SIZE(prm), steps,
			  ARRAY_SIZE(steps));
}

static void sroce_cc_rp_first_cnp_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_rate_to_set_on_first_cnp", 2000 },
	};

	sroce_cc_test_run(test, 10000, prm, ARRAY_SIZE(prm), rp_first_cnp,
			  ARRAY_SIZE(rp_first_cnp));
}

static void sroce_cc_rp_floor_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_min_rate", 100 }, { "rp_min_dec_fac", 80 },
	};

	sroce_cc_test_run(test, 1000, prm, ARRAY_SIZE(prm), rp_floor,
			  ARRAY_SIZE(rp_floor));
}

/*
 * The floor lifts Rc over Rt: rp_rate_to_set_on_first_cnp (5 Mb/s) sets
 * both below rp_min_rate (10 Mb/s), and a second CNP, before any increase
 * event, cuts Rc to the floor while Rt stays. With no increase step the
 * model brings Rc halfway down to Rt per event, so that after 3333 timer
 * events Rc equals Rt exactly (the module once stalled at Rt + 1 b/s,
 * which made every later catch-up step event by event: millions of
 * iterations in softirq for a QP idle long enough).
 */
static void sroce_cc_rp_floor_above_target_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_rate_to_set_on_first_cnp", 5 }, { "rp_min_rate", 10 },
		{ "rp_ai_rate", 0 }, { "rp_hai_rate", 0 },
	};
	u64 later = TEST_T0_NS + NSEC_PER_SEC + 10 * NSEC_PER_USEC;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	sroce_cc_test_setup(test, &p, prm, ARRAY_SIZE(prm));
	sroce_cc_rp_init(&rp, 10000);
	sroce_cc_rp_on_cnp(&rp, &p, TEST_T0_NS);
	KUNIT_EXPECT_EQ(test, (u32)sroce_cc_rp_on_cnp(&rp, &p, TEST_T0_NS +
						       10 * NSEC_PER_USEC),
			(u32)SROCE_CC_CNP_HANDLED);
	KUNIT_EXPECT_EQ(test, rp.rc, 10000000ULL);
	KUNIT_EXPECT_EQ(test, rp.rt, 5000000ULL);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate(&rp, &p, later), 5000000ULL);
	KUNIT_EXPECT_EQ(test, rp.rc, rp.rt);
	KUNIT_EXPECT_EQ(test, rp.tstage, 3333U);
}

static void sroce_cc_rp_alpha_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_dce_tcp_rtt", 55 }, { "rp_dce_tcp_g", 1020 },
		{ "rp_rate_reduce_monitor_period", 50 },
	};

	sroce_cc_test_run(test, 40000, prm, ARRAY_SIZE(prm), rp_alpha,
			  ARRAY_SIZE(rp_alpha));
}

/*
 * rp_gd: with alpha 512/1024 and no min_dec_fac bound, gd 11 cuts
 * Rc * 512 / 2048 = 25 % of 1 Gb/s, gd 10 cuts Rc * 512 / 1024 = 50 %.
 */
static void sroce_cc_rp_gd_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm11[] = {
		{ "rp_initial_alpha_value", 512 }, { "rp_min_dec_fac", 0 },
	};
	static const struct sroce_cc_test_param prm10[] = {
		{ "rp_initial_alpha_value", 512 }, { "rp_min_dec_fac", 0 },
		{ "rp_gd", 10 },
	};
	static const struct sroce_cc_test_step steps11[] = {
		{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 750000, 1000000, 512 },
	};
	static const struct sroce_cc_test_step steps10[] = {
		{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 500000, 1000000, 512 },
	};

	sroce_cc_test_run(test, 1000, prm11, ARRAY_SIZE(prm11), steps11,
			  ARRAY_SIZE(steps11));
	sroce_cc_test_run(test, 1000, prm10, ARRAY_SIZE(prm10), steps10,
			  ARRAY_SIZE(steps10));
}

/*
 * rp_max_rate 2000 at a 10 Gb/s line: the cut (to 5004.883 Mb/s) is
 * capped at 2 Gb/s, Rt too, and increases never pass it.
 */
static void sroce_cc_rp_max_rate_test(struct kunit *test)
{
	static const struct sroce_cc_test_param prm[] = {
		{ "rp_max_rate", 2000 },
	};
	static const struct sroce_cc_test_step steps[] = {
		{ STEP_CNP, 0, 0, SROCE_CC_CNP_HANDLED, 2000000, 2000000, 1023 },
		{ STEP_RATE, 300, 0, 0, 2000000, 2000000, 237 },
		{ STEP_RATE, 100000, 0, 0, 2000000, 2000000, 0 },
	};

	sroce_cc_test_run(test, 10000, prm, ARRAY_SIZE(prm), steps,
			  ARRAY_SIZE(steps));
}

/*
 * rp_byte_reset 0 switches the byte counter off: 100 MB sent right after
 * a cut change nothing (the defaults would make ~48 byte events).
 */
static void sroce_cc_rp_byte_counter_off_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp_info info;
	struct sroce_cc_rp rp;
	unsigned int i;

	sroce_cc_params_init_defaults(&p);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "rp_byte_reset", 0), 0);
	sroce_cc_rp_init(&rp, 10000);
	sroce_cc_rp_on_cnp(&rp, &p, TEST_T0_NS);
	for (i = 0; i < 25000; i++)
		sroce_cc_rp_on_tx(&rp, &p, 4096, TEST_T0_NS + i);
	sroce_cc_rp_get_info(&rp, &info);
	KUNIT_EXPECT_EQ(test, info.bstage, 0U);
	KUNIT_EXPECT_EQ(test, info.rc_kbps, 5004883ULL);
}

/* No CNP: no DCQCN state, line rate, never paced. */
static void sroce_cc_rp_uncongested_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp_info info;
	struct sroce_cc_rp rp;
	unsigned int i;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_rp_init(&rp, 25000);
	for (i = 0; i < 1000; i++) {
		KUNIT_EXPECT_TRUE(test, sroce_cc_rp_may_send(&rp, TEST_T0_NS + i));
		sroce_cc_rp_on_tx(&rp, &p, 4096, TEST_T0_NS + i);
	}
	sroce_cc_rp_get_info(&rp, &info);
	KUNIT_EXPECT_FALSE(test, info.active);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate(&rp, &p, TEST_T0_NS + 1000),
			25000ULL * 1000000);
}

/*
 * Pacing: Rc pinned by rp_rate_to_set_on_first_cnp with all increases off,
 * a 100 Gb/s line, 4 KiB packets sent whenever allowed for 1 s of fake
 * time. @late_ns models hrtimer slack on every wake-up.
 */
static u64 sroce_cc_test_pace(struct kunit *test, u32 mbps, u64 late_ns)
{
	const struct sroce_cc_test_param prm[] = {
		{ "rp_rate_to_set_on_first_cnp", mbps }, { "rp_ai_rate", 0 },
		{ "rp_hai_rate", 0 }, { "rp_byte_reset", 0 },
	};
	u64 now = TEST_T0_NS, end = TEST_T0_NS + NSEC_PER_SEC, bytes = 0;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	sroce_cc_test_setup(test, &p, prm, ARRAY_SIZE(prm));
	sroce_cc_rp_init(&rp, 100000);
	sroce_cc_rp_on_cnp(&rp, &p, now);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate(&rp, &p, now), (u64)mbps * 1000000);
	while (now < end) {
		if (sroce_cc_rp_may_send(&rp, now)) {
			sroce_cc_rp_on_tx(&rp, &p, 4096, now);
			bytes += 4096;
		} else {
			now = sroce_cc_rp_next_send_ns(&rp) + late_ns;
		}
	}
	return bytes;
}

static void sroce_cc_test_expect_rate(struct kunit *test, u32 mbps, u64 bytes)
{
	u64 want = (u64)mbps * 1000000 / 8;

	/* Within 1 % of the rate, plus the first packet and the burst. */
	KUNIT_EXPECT_LE_MSG(test, bytes, want + want / 100 + 4096 +
			    SROCE_CC_PACE_BURST_BYTES, "%u Mb/s", mbps);
	KUNIT_EXPECT_GE_MSG(test, bytes, want - want / 100, "%u Mb/s", mbps);
}

/*
 * The catch-up credit: 2 KB at 2 Mb/s, 4 ms at 16 Mb/s, 16 KB at 64 Mb/s
 * and at 1 Gb/s.
 */
static void sroce_cc_pacer_credit_test(struct kunit *test)
{
	struct sroce_cc_pacer pc = {};

	sroce_cc_pacer_set_rate(&pc, 2000000, 10000000000ULL, TEST_T0_NS);
	KUNIT_EXPECT_EQ(test, pc.credit, 8192000ULL);
	sroce_cc_pacer_set_rate(&pc, 16000000, 10000000000ULL, TEST_T0_NS);
	KUNIT_EXPECT_EQ(test, pc.credit, 4000000ULL);
	sroce_cc_pacer_set_rate(&pc, 64000000, 10000000000ULL, TEST_T0_NS);
	KUNIT_EXPECT_EQ(test, pc.credit, 2048000ULL);
	sroce_cc_pacer_set_rate(&pc, 1000000000, 10000000000ULL, TEST_T0_NS);
	KUNIT_EXPECT_EQ(test, pc.credit, 131072ULL);
}

static void sroce_cc_rp_pacing_test(struct kunit *test)
{
	static const u32 rates[] = { 10, 100, 1000, 10000 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++)
		sroce_cc_test_expect_rate(test, rates[i],
					  sroce_cc_test_pace(test, rates[i], 0));
}

/* Wake-ups 5 us late lose nothing at 1 Gb/s: the burst credit covers it. */
static void sroce_cc_rp_pacing_late_test(struct kunit *test)
{
	sroce_cc_test_expect_rate(test, 1000,
				  sroce_cc_test_pace(test, 1000, 5000));
}

static struct kunit_case sroce_cc_rp_cases[] = {
	KUNIT_CASE(sroce_cc_rp_defaults_test),
	KUNIT_CASE(sroce_cc_rp_fast_recovery_test),
	KUNIT_CASE(sroce_cc_rp_hyper_test),
	KUNIT_CASE(sroce_cc_rp_clamp_test),
	KUNIT_CASE(sroce_cc_rp_clamp_ati_test),
	KUNIT_CASE(sroce_cc_rp_first_cnp_test),
	KUNIT_CASE(sroce_cc_rp_floor_test),
	KUNIT_CASE(sroce_cc_rp_floor_above_target_test),
	KUNIT_CASE(sroce_cc_rp_alpha_test),
	KUNIT_CASE(sroce_cc_rp_gd_test),
	KUNIT_CASE(sroce_cc_rp_max_rate_test),
	KUNIT_CASE(sroce_cc_rp_byte_counter_off_test),
	KUNIT_CASE(sroce_cc_rp_uncongested_test),
	KUNIT_CASE(sroce_cc_pacer_credit_test),
	KUNIT_CASE(sroce_cc_rp_pacing_test),
	KUNIT_CASE(sroce_cc_rp_pacing_late_test),
	{}
};

static struct kunit_suite sroce_cc_rp_suite = {
	.name = "sroce_cc_rp",
	.test_cases = sroce_cc_rp_cases,
};

/*
 * A CE packet every 100 ns for 1 ms with the default 4 us spacing: CNPs go
 * out exactly at 0, 4, 8, ... 996 us, 250 in all.
 */
static void sroce_cc_np_burst_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_np np;
	unsigned int sent = 0;
	u64 t;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_np_init(&np);
	for (t = 0; t < 1000 * NSEC_PER_USEC; t += 100) {
		if (!sroce_cc_np_should_send_cnp(&np, &p, TEST_T0_NS + t))
			continue;
		KUNIT_EXPECT_EQ(test, t, (u64)sent * 4 * NSEC_PER_USEC);
		sent++;
	}
	KUNIT_EXPECT_EQ(test, sent, 250U);
}

/* The next CNP is allowed exactly at the boundary, not 1 ns before. */
static void sroce_cc_np_boundary_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_np np;

	sroce_cc_params_init_defaults(&p);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "np_min_time_between_cnps",
						 50), 0);
	sroce_cc_np_init(&np);
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&np, &p, TEST_T0_NS));
	KUNIT_EXPECT_FALSE(test, sroce_cc_np_should_send_cnp(&np, &p,
							     TEST_T0_NS + 49999));
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&np, &p,
							    TEST_T0_NS + 50000));
	/* The gap runs from the last CNP sent, not from the last mark. */
	KUNIT_EXPECT_FALSE(test, sroce_cc_np_should_send_cnp(&np, &p,
							     TEST_T0_NS + 99999));
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&np, &p,
							    TEST_T0_NS + 100000));
}

/* Spacing is per QP; 0 us spacing answers every mark. */
static void sroce_cc_np_per_qp_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_np a, b;
	unsigned int i;

	sroce_cc_params_init_defaults(&p);
	sroce_cc_np_init(&a);
	sroce_cc_np_init(&b);
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&a, &p, TEST_T0_NS));
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&b, &p, TEST_T0_NS + 1));
	KUNIT_EXPECT_FALSE(test, sroce_cc_np_should_send_cnp(&a, &p, TEST_T0_NS + 2));
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "np_min_time_between_cnps",
						 0), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&a, &p,
								    TEST_T0_NS + 3));
}

static struct kunit_case sroce_cc_np_cases[] = {
	KUNIT_CASE(sroce_cc_np_burst_test),
	KUNIT_CASE(sroce_cc_np_boundary_test),
	KUNIT_CASE(sroce_cc_np_per_qp_test),
	{}
};

static struct kunit_suite sroce_cc_np_suite = {
	.name = "sroce_cc_np",
	.test_cases = sroce_cc_np_cases,
};

/*
 * Every parameter with the range and default written down independently
 * of the table (from dcqcn-and-style.md 1.4 and the NVIDIA DCQCN page; the
 * sroce-chosen bounds are explained in sroce_cc_params.c).
 */
static const struct {
	const char *name;
	u32 min, max, def;
} sroce_cc_test_ranges[] = {
	{ "rp_enable", 0, 255, 255 },
	{ "rp_clamp_tgt_rate", 0, 1, 0 },
	{ "rp_clamp_tgt_rate_ati", 0, 1, 1 },
	{ "rp_time_reset", 1, 131071, 300 },
	{ "rp_byte_reset", 0, 32767, 32767 },
	{ "rp_threshold", 1, 31, 1 },
	{ "rp_max_rate", 0, 400000, 0 },
	{ "rp_ai_rate", 0, 400000, 5 },
	{ "rp_hai_rate", 0, 400000, 50 },
	{ "rp_gd", 10, 11, 11 },
	{ "rp_min_dec_fac", 0, 100, 50 },
	{ "rp_min_rate", 1, 400000, 1 },
	{ "rp_rate_to_set_on_first_cnp", 0, 400000, 0 },
	{ "rp_dce_tcp_g", 0, 1023, 1019 },
	{ "rp_dce_tcp_rtt", 1, 131071, 1 },
	{ "rp_rate_reduce_monitor_period", 1, 131071, 4 },
	{ "rp_initial_alpha_value", 1, 1023, 1023 },
	{ "np_enable", 0, 255, 255 },
	{ "np_min_time_between_cnps", 0, 131071, 4 },
	{ "np_cnp_dscp", 0, 63, 48 },
	{ "np_cnp_prio_mode", 0, 1, 0 },
	{ "np_cnp_prio", 0, 7, 6 },
	{ "ecn_enable", 0, 1, 1 },
	{ "roce_dscp", 0, 63, 0 },
	{ "tx_trains", 0, 2, 1 },
	{ "tx_adaptive_window", 0, 1, 1 },
	{ "tx_rtt_retransmit", 0, 1, 1 },
	{ "cc_algo", 0, 1, 0 },
	{ "timely_t_low", 0, 131071, 50 },
	{ "timely_t_high", 1, 131071, 1000 },
	{ "timely_min_rtt", 1, 131071, 50 },
	{ "timely_ai_rate", 0, 400000, 10 },
	{ "timely_beta", 0, 1024, 819 },
	{ "timely_alpha", 0, 1024, 896 },
	{ "timely_hai_n", 1, 255, 5 },
	{ "timely_min_rate", 1, 400000, 10 },
	{ "timely_max_rate", 0, 400000, 0 },
};

static void sroce_cc_params_ranges_test(struct kunit *test)
{
	struct sroce_cc_params p;
	unsigned int i;
	u32 v;

	KUNIT_ASSERT_EQ(test, sroce_cc_param_count(),
			(unsigned int)ARRAY_SIZE(sroce_cc_test_ranges));
	sroce_cc_params_init_defaults(&p);
	for (i = 0; i < ARRAY_SIZE(sroce_cc_test_ranges); i++) {
		const char *name = sroce_cc_test_ranges[i].name;
		u32 min = sroce_cc_test_ranges[i].min;
		u32 max = sroce_cc_test_ranges[i].max;

		KUNIT_EXPECT_STREQ(test, sroce_cc_param_name(i), name);
		KUNIT_ASSERT_EQ(test, sroce_cc_param_get(&p, name, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, sroce_cc_test_ranges[i].def, "%s", name);

		KUNIT_EXPECT_EQ_MSG(test, sroce_cc_param_set(&p, name, min), 0,
				    "%s", name);
		KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, name, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, min, "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_cc_param_set(&p, name, max), 0,
				    "%s", name);
		KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, name, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, max, "%s", name);
		if (min > 0)
			KUNIT_EXPECT_EQ_MSG(test, sroce_cc_param_set(&p, name, min - 1),
					    -ERANGE, "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_cc_param_set(&p, name, max + 1),
				    -ERANGE, "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, sroce_cc_param_set(&p, name, U32_MAX),
				    -ERANGE, "%s", name);
		/* A refused write leaves the value alone. */
		KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, name, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, max, "%s", name);
	}
}

static void sroce_cc_params_unknown_test(struct kunit *test)
{
	struct sroce_cc_params p;
	u32 v = 7;

	sroce_cc_params_init_defaults(&p);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, "rp_no_such", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, "", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, "rp_gd ", 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, "np_cnp", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, v, 7U);
	KUNIT_EXPECT_NULL(test, sroce_cc_param_name(sroce_cc_param_count()));
}

/* As in mlx5, writing np_cnp_prio selects it (np_cnp_prio_mode 0). */
static void sroce_cc_params_prio_mode_test(struct kunit *test)
{
	struct sroce_cc_params p;
	u32 v;

	sroce_cc_params_init_defaults(&p);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "np_cnp_prio_mode", 1), 0);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_set(&p, "np_cnp_prio", 3), 0);
	KUNIT_ASSERT_EQ(test, sroce_cc_param_get(&p, "np_cnp_prio_mode", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0U);
}

static struct kunit_case sroce_cc_params_cases[] = {
	KUNIT_CASE(sroce_cc_params_ranges_test),
	KUNIT_CASE(sroce_cc_params_unknown_test),
	KUNIT_CASE(sroce_cc_params_prio_mode_test),
	{}
};

static struct kunit_suite sroce_cc_params_suite = {
	.name = "sroce_cc_params",
	.test_cases = sroce_cc_params_cases,
};

/*
 * The stage the rate tracepoint reports (sroce_trace.c): with F = 2, fast
 * recovery while both counters are <= 2, hyper once both are > 2,
 * additive in between; events that are no increase have fixed stages.
 */
static void sroce_cc_trace_stage_test(struct kunit *test)
{
	static const struct {
		enum sroce_cc_rate_reason reason;
		u32 tstage, bstage;
		enum sroce_cc_rate_stage stage;
	} cases[] = {
		{ SROCE_CC_RATE_CNP, 0, 0, SROCE_CC_STAGE_CUT },
		{ SROCE_CC_RATE_CNP, 9, 9, SROCE_CC_STAGE_CUT },
		{ SROCE_CC_RATE_TIMER, 1, 0, SROCE_CC_STAGE_FAST_RECOVERY },
		{ SROCE_CC_RATE_TIMER, 2, 2, SROCE_CC_STAGE_FAST_RECOVERY },
		{ SROCE_CC_RATE_TIMER, 3, 0, SROCE_CC_STAGE_ADDITIVE },
		{ SROCE_CC_RATE_BYTE, 2, 3, SROCE_CC_STAGE_ADDITIVE },
		{ SROCE_CC_RATE_BYTE, 3, 3, SROCE_CC_STAGE_HYPER },
		{ SROCE_CC_RATE_TIMER, 40, 7, SROCE_CC_STAGE_HYPER },
		{ SROCE_CC_RATE_INIT, 0, 0, SROCE_CC_STAGE_NONE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sroce_cc_rp_info info = {
			.tstage = cases[i].tstage,
			.bstage = cases[i].bstage,
		};

		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_cc_rate_stage(cases[i].reason, &info, 2),
				    cases[i].stage, "case %u", i);
	}
}

static struct kunit_case sroce_cc_trace_cases[] = {
	KUNIT_CASE(sroce_cc_trace_stage_test),
	{}
};

static struct kunit_suite sroce_cc_trace_suite = {
	.name = "sroce_cc_trace",
	.test_cases = sroce_cc_trace_cases,
};

kunit_test_suites(&sroce_cc_rp_suite, &sroce_cc_np_suite,
		  &sroce_cc_params_suite, &sroce_cc_trace_suite);
