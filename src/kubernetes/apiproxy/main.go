// kcluster-apiproxy: the node-local load balancer in front of the control planes, for
// clusters without an external load balancer. It listens on 127.0.0.1:<port> and passes each
// TCP connection (TLS stays end to end: it never decrypts) to the first healthy API server,
// starting from a rotating offset; a backend that refuses or times out is skipped and retried
// after a pause. Go standard library only; built into the kcluster bundle. With -check it is
// instead the health check of a control plane that holds the API's virtual IP (check.go).
//
//	kcluster-apiproxy -listen 127.0.0.1:6444 -backend 10.0.0.11:6443 -backend 10.0.0.12:6443
//	kcluster-apiproxy -check https://127.0.0.1:6443/readyz
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type backends []string

func (b *backends) String() string     { return strings.Join(*b, ",") }
func (b *backends) Set(s string) error { *b = append(*b, s); return nil }

type pool struct {
	addrs   []string
	next    atomic.Uint64
	mu      sync.Mutex
	downTil map[string]time.Time
}

const dialTimeout = 3 * time.Second
const downFor = 5 * time.Second

func (p *pool) healthy(addr string, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return now.After(p.downTil[addr])
}

func (p *pool) markDown(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.downTil[addr] = time.Now().Add(downFor)
}

// dial tries every backend once, healthy ones first, from a rotating start.
func (p *pool) dial() (net.Conn, string, error) {
	start := int(p.next.Add(1))
	now := time.Now()
	order := make([]string, 0, len(p.addrs))
	var later []string
	for i := range p.addrs {
		a := p.addrs[(start+i)%len(p.addrs)]
		if p.healthy(a, now) {
			order = append(order, a)
		} else {
			later = append(later, a)
		}
	}
	order = append(order, later...)
	var errs []string
	for _, a := range order {
		c, err := net.DialTimeout("tcp", a, dialTimeout)
		if err == nil {
			return c, a, nil
		}
		p.markDown(a)
		errs = append(errs, err.Error())
	}
	return nil, "", fmt.Errorf("no API server answered: %s", strings.Join(errs, "; "))
}

func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
	a.Close()
	b.Close()
}

func main() {
	var addrs backends
	listen := flag.String("listen", "127.0.0.1:6444", "address to listen on")
	flag.Var(&addrs, "backend", "API server host:port (repeat for each control plane)")
	version := flag.Bool("version", false, "print the version")
	check := flag.String("check", "", "instead of proxying: exit 0 when this loopback https URL answers 200 (keepalived's health check)")
	flag.Parse()
	if *version {
		fmt.Println("kcluster-apiproxy 2")
		return
	}
	if *check != "" {
		if err := checkReady(*check); err != nil {
			fmt.Fprintf(os.Stderr, "kcluster-apiproxy: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if len(addrs) == 0 {
		fmt.Fprintln(os.Stderr, "kcluster-apiproxy: give at least one -backend host:port")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("kcluster-apiproxy: %v", err)
	}
	p := &pool{addrs: addrs, downTil: map[string]time.Time{}}
	log.Printf("kcluster-apiproxy: %s -> %s", *listen, addrs.String())
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Printf("accept: %v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go func(c net.Conn) {
			up, addr, err := p.dial()
			if err != nil {
				log.Printf("%v", err)
				c.Close()
				return
			}
			_ = addr
			pipe(c, up)
		}(c)
	}
}
