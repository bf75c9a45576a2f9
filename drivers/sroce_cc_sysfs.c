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
 */
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

const struct attribute_group *sroce_cc_sysfs_port_groups[] = {
	&sroce_cc_params_group,
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
}
