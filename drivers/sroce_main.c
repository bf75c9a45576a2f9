// SPDX-License-Identifier: GPL-2.0
/*
 * sroce: a software RoCEv2 RDMA device with ECN and DCQCN congestion
 * control. Module entry points: bring the pieces up in dependency order and
 * take them down in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sroce_dev.h"
#include "sroce_net.h"

static int __init sroce_init(void)
{
	int err;

	/* The sockets first: a busy port 4791 means rdma_rxe is loaded. */
	err = sroce_net_init();
	if (err)
		return err;

	err = sroce_dev_init();
	if (err)
		goto err_net;

	pr_info("loaded\n");
	return 0;

err_net:
	sroce_net_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	sroce_dev_exit();
	sroce_net_exit();
	pr_info("unloaded\n");
}

/* After the IPv6 and UDP tunnel code when built in. */
late_initcall(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("Software RoCEv2 with ECN and DCQCN congestion control");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
