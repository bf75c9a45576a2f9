// SPDX-License-Identifier: GPL-2.0
/*
 * Port sysfs files for the DCQCN parameters: one file per entry of the
 * parameter table, named after it, in the group "cc_params" of every port
 * (the RDMA core creates ib_device_ops.port_groups under
 * /sys/class/infiniband/<dev>/ports/<n>/ when it registers the device).
 *
 * Reading prints the value as a decimal u32. Writing parses a u32
 * (decimal, or 0x... for the priority bitmasks) and hands it to
 * sroce_cc_param_set(), which refuses a value out of range with -ERANGE
 * (and logs the valid range), so `echo 12 > rp_gd` fails with "Numerical
 * result out of range". A write takes effect for the next packet of every
 * QP: the data path reads each field with READ_ONCE(), no lock needed.
 *
 * mlx5 puts the same names in debugfs (mode 0600); sroce uses sysfs so that
 * they exist without debugfs, readable by all and writable by root.
 *
 * The attributes are static, one per table entry, named at module init
 * (before any device registers) from the table itself, so a new parameter
 * needs no change here.
 *
 * Per-priority switches as MLNX_OFED has them (/sys/class/net/<if>/ecn/
 * roce_rp/enable/<prio> and roce_np/enable/<prio>): port groups
 * roce_rp_enable/ and roce_np_enable/ with one file per priority 0..7,
 * holding 0 or 1, views of one bit of rp_enable / np_enable. sroce has no
 * VLAN, so a packet's priority is the class of its DSCP (DSCP >> 3).
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include "sroce_cc_params.h"
#include "sroce_cc_sysfs.h"
#include "sroce_dev.h"

static struct ib_port_attribute sroce_cc_attrs[SROCE_CC_NUM_PARAMS];
static struct attribute *sroce_cc_attr_list[SROCE_CC_NUM_PARAMS + 1];

static const struct attribute_group sroce_cc_params_group = {
	.name = "cc_params",
	.attrs = sroce_cc_attr_list,
};

/* Priority p of a per-priority switch is the attribute's index. */
#define SROCE_CC_NUM_PRIOS	8

static struct ib_port_attribute sroce_cc_rp_prio_attrs[SROCE_CC_NUM_PRIOS];
static struct ib_port_attribute sroce_cc_np_prio_attrs[SROCE_CC_NUM_PRIOS];
static struct attribute *sroce_cc_rp_prio_list[SROCE_CC_NUM_PRIOS + 1];
static struct attribute *sroce_cc_np_prio_list[SROCE_CC_NUM_PRIOS + 1];
static const char * const sroce_cc_prio_names[SROCE_CC_NUM_PRIOS] = {
	"0", "1", "2", "3", "4", "5", "6", "7"
};

static const struct attribute_group sroce_cc_rp_prio_group = {
	.name = "roce_rp_enable",
	.attrs = sroce_cc_rp_prio_list,
};

static const struct attribute_group sroce_cc_np_prio_group = {
	.name = "roce_np_enable",
	.attrs = sroce_cc_np_prio_list,
};

const struct attribute_group *sroce_cc_sysfs_port_groups[] = {
	&sroce_cc_params_group,
	&sroce_cc_rp_prio_group,
	&sroce_cc_np_prio_group,
	NULL
};

static ssize_t sroce_cc_param_show(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *attr, char *buf)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	u32 val;
	int err;

	err = sroce_cc_param_get(&sdev->cc_params, attr->attr.name, &val);
	if (err)
		return err;
	return sysfs_emit(buf, "%u\n", val);
}

static ssize_t sroce_cc_param_store(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_attribute *attr,
				    const char *buf, size_t count)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	u32 val;
	int err;

	/* -EINVAL for text that is no number, -ERANGE above U32_MAX. */
	err = kstrtou32(buf, 0, &val);
	if (err)
		return err;
	err = sroce_cc_param_set(&sdev->cc_params, attr->attr.name, val);
	if (err)
		return err;
	return count;
}

/* The bitmask a per-priority attribute belongs to, and its bit. */
static u32 *sroce_cc_prio_mask(struct sroce_dev *sdev,
			       struct ib_port_attribute *attr, u32 *bit)
{
	if (attr >= sroce_cc_rp_prio_attrs &&
	    attr < sroce_cc_rp_prio_attrs + SROCE_CC_NUM_PRIOS) {
		*bit = BIT(attr - sroce_cc_rp_prio_attrs);
		return &sdev->cc_params.rp_enable;
	}
	*bit = BIT(attr - sroce_cc_np_prio_attrs);
	return &sdev->cc_params.np_enable;
}

static ssize_t sroce_cc_prio_show(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_attribute *attr, char *buf)
{
	u32 bit, *mask = sroce_cc_prio_mask(to_sdev(ibdev), attr, &bit);

	return sysfs_emit(buf, "%u\n", !!(READ_ONCE(*mask) & bit));
}

static ssize_t sroce_cc_prio_store(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *attr,
				   const char *buf, size_t count)
{
	u32 bit, *mask = sroce_cc_prio_mask(to_sdev(ibdev), attr, &bit);
	u32 val, old, new;
	int err;

	err = kstrtou32(buf, 0, &val);
	if (err)
		return err;
	if (val > 1)
		return -ERANGE;
	/*
	 * Other priorities' bits may change concurrently (another file, or
	 * the whole mask through cc_params): flip only ours, atomically.
	 */
	old = READ_ONCE(*mask);
	do {
		new = val ? old | bit : old & ~bit;
	} while (!try_cmpxchg(mask, &old, new));
	return count;
}

static void sroce_cc_prio_init(struct ib_port_attribute *attrs,
			       struct attribute **list)
{
	unsigned int i;

	for (i = 0; i < SROCE_CC_NUM_PRIOS; i++) {
		sysfs_attr_init(&attrs[i].attr);
		attrs[i].attr.name = sroce_cc_prio_names[i];
		attrs[i].attr.mode = 0644;
		attrs[i].show = sroce_cc_prio_show;
		attrs[i].store = sroce_cc_prio_store;
		list[i] = &attrs[i].attr;
	}
	list[i] = NULL;
}

/**
 * sroce_cc_sysfs_init() - name the attributes after the parameter table
 *
 * Context: module init, before the first device registers; the port
 * groups must not be used before this ran.
 */
void sroce_cc_sysfs_init(void)
{
	unsigned int i;

	/*
	 * sroce_cc_param_count() == SROCE_CC_NUM_PARAMS: a BUILD_BUG_ON in
	 * sroce_cc_params.c ties the table to the struct.
	 */
	for (i = 0; i < ARRAY_SIZE(sroce_cc_attrs); i++) {
		struct ib_port_attribute *a = &sroce_cc_attrs[i];

		sysfs_attr_init(&a->attr);
		a->attr.name = sroce_cc_param_name(i);
		a->attr.mode = 0644;
		a->show = sroce_cc_param_show;
		a->store = sroce_cc_param_store;
		sroce_cc_attr_list[i] = &a->attr;
	}
	sroce_cc_attr_list[i] = NULL;
	sroce_cc_prio_init(sroce_cc_rp_prio_attrs, sroce_cc_rp_prio_list);
	sroce_cc_prio_init(sroce_cc_np_prio_attrs, sroce_cc_np_prio_list);
}
