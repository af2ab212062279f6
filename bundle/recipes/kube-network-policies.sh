#!/usr/bin/env bash
# kube-network-policies, SIG Network's NetworkPolicy agent (its image is assembled by kcluster
# from this binary, at /bin/netpol as upstream's Dockerfile puts it). Built as upstream's
# Dockerfile does (./cmd, CGO off), with two changes. First, it stops on SIGTERM as it does on
# SIGINT: upstream's deferred clean-up (deleting its nftables table) then runs when the kubelet
# stops the pod, instead of leaving a table that queues packets to no one (they are dropped),
# as a DaemonSet deleted or rolled would. Second, upstream queues packets to the agent with
# nf_tables' own `queue` expression (nft_queue), which some kernels are built without
# (CONFIG_NFT_QUEUE unset: adding the rule fails with ENOENT). The added file tries that
# expression once in a throw-away table and, when the kernel refuses it, queues through
# nft_compat with xtables' NFQUEUE target instead (same queue, same bypass flag), as iptables
# does. Kernels with nft_queue keep upstream's rules unchanged.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/kube-network-policies-$1
use_go
verified_gomod "sigs.k8s.io/kube-network-policies@$v" >/dev/null
src=$(module_dir "sigs.k8s.io/kube-network-policies@$v")
rm -rf "$w"; cp -r "$src" "$w"; chmod -R u+w "$w"; cd "$w"
m=cmd/main.go
grep -q 'context.Background(), os.Interrupt, unix.SIGINT)' $m || die "$m: the signal handling is not what this recipe expects; review the recipe for $v"
sed -i 's/context.Background(), os.Interrupt, unix.SIGINT)/context.Background(), os.Interrupt, unix.SIGINT, unix.SIGTERM)/' $m
c=pkg/networkpolicy/controller.go
# Both places that build the verdict (the ingress and the egress chain) take the added function.
[ "$(grep -c 'queue := &expr.Queue{Num: uint16(c.config.QueueID)}' $c)" = 2 ] || die "$c: the queue verdict is not built where this recipe expects (2 places); review the recipe for $v"
sed -i '/queue := &expr.Queue{Num: uint16(c.config.QueueID)}/{N;N;N;s/.*/\tqueue := queueVerdict(uint16(c.config.QueueID), c.config.FailOpen)/}' $c
grep -q 'expr.Queue{Num: uint16(c.config.QueueID)}' $c && die "$c: the queue verdict was not replaced"
cat > pkg/networkpolicy/queue_verdict.go <<'GO'
// Added by kcluster's bundle recipe (bundle/recipes/kube-network-policies.sh).
package networkpolicy

import (
	"encoding/binary"
	"sync"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
	"k8s.io/klog/v2"
)

var (
	nativeQueueOnce sync.Once
	nativeQueue     bool
)

// nativeQueueSupported adds a rule with nf_tables' queue expression in a throw-away table,
// once per process: without nft_queue in the kernel, the rule is refused.
func nativeQueueSupported() bool {
	nativeQueueOnce.Do(func() {
		nft, err := nftables.New()
		if err != nil {
			nativeQueue = true // upstream's behaviour; syncing reports the error
			return
		}
		table := nft.AddTable(&nftables.Table{Name: "kube-network-policies-queue-probe", Family: nftables.TableFamilyINet})
		chain := nft.AddChain(&nftables.Chain{Name: "probe", Table: table})
		nft.AddRule(&nftables.Rule{Table: table, Chain: chain, Exprs: []expr.Any{&expr.Queue{Num: 0, Flag: expr.QueueFlagBypass}}})
		nativeQueue = nft.Flush() == nil
		nft.DelTable(table)
		_ = nft.Flush()
		klog.Infof("nf_tables queue expression supported: %v (otherwise xtables NFQUEUE through nft_compat)", nativeQueue)
	})
	return nativeQueue
}

// queueVerdict sends a packet to the agent's queue: nf_tables' queue expression, or, on a
// kernel without it, xtables' NFQUEUE target revision 3 (struct xt_NFQ_info_v3: queuenum,
// queues_total, flags; XT_ALIGN'ed to 8 bytes), whose flag 1 is the same bypass (fail open).
func queueVerdict(num uint16, failOpen bool) expr.Any {
	if nativeQueueSupported() {
		q := &expr.Queue{Num: num}
		if failOpen {
			q.Flag = expr.QueueFlagBypass
		}
		return q
	}
	info := make([]byte, 8)
	binary.NativeEndian.PutUint16(info[0:], num)
	binary.NativeEndian.PutUint16(info[2:], 1)
	if failOpen {
		binary.NativeEndian.PutUint16(info[4:], 1)
	}
	payload := xt.Unknown(info)
	return &expr.Target{Name: "NFQUEUE", Rev: 3, Info: &payload}
}
GO
CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w" -o "$out/kube-network-policies" ./cmd
run_target "$out/kube-network-policies" --help 2>&1 | grep -F -- '-nfqueue-id'
