package main

// kcluster-apiproxy -check URL: keepalived's health check on a control plane holding the
// API's virtual IP (roles/api-vip). It asks the local API server's /readyz and exits 0 only on
// 200, so a control plane whose API server is down, or up without etcd, gives the address up.

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const checkTimeout = 2 * time.Second

// checkReady returns nil when url answers 200. Only loopback is asked: the certificate is not
// verified because the connection never leaves the host, and a check that failed on a CA
// rotation's trust change would take the address from every control plane at once.
func checkReady(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return fmt.Errorf("%q is not an https URL", raw)
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address: -check asks the local API server only", u.Hostname())
	}
	client := &http.Client{
		Timeout: checkTimeout,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // #nosec G402 -- loopback only, see above
			DisableKeepAlives: true,
		},
	}
	resp, err := client.Get(u.String())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d: %s", u.String(), resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
