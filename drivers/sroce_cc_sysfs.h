/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN parameters of a sroce device as port sysfs attributes:
 * /sys/class/infiniband/<dev>/ports/1/cc_params/<name>, one decimal u32
 * per file under the mlx5 cc_params names (sroce_cc_params.c).
 */
#ifndef _SROCE_CC_SYSFS_H
#define _SROCE_CC_SYSFS_H

struct attribute_group;

/* For ib_device_ops.port_groups; valid once sroce_cc_sysfs_init() ran. */
extern const struct attribute_group *sroce_cc_sysfs_port_groups[];

void sroce_cc_sysfs_init(void);

#endif /* _SROCE_CC_SYSFS_H */
