package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckReadyAnswers200(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	if err := checkReady(srv.URL + "/readyz"); err != nil {
		t.Fatalf("a 200 is ready: %v", err)
	}
}

func TestCheckReadyFailsOnNot200(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "[-]etcd failed", http.StatusInternalServerError)
	}))
	defer srv.Close()
	err := checkReady(srv.URL + "/readyz")
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "etcd failed") {
		t.Fatalf("a 500 is not ready and says why: %v", err)
	}
}

func TestCheckReadyFailsWhenNothingListens(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := checkReady(url + "/readyz"); err == nil {
		t.Fatal("a closed port is not ready")
	}
}

func TestCheckReadyRefusesOtherHosts(t *testing.T) {
	for _, u := range []string{"https://10.0.0.1:6443/readyz", "http://127.0.0.1:6443/readyz", "https://localhost:6443/readyz"} {
		if err := checkReady(u); err == nil {
			t.Fatalf("%s must be refused", u)
		}
	}
}
