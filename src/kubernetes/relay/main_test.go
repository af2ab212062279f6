package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testToken = "0123456789abcdef0123456789abcdef"

// startServer serves content from a file in a temporary folder on 127.0.0.1 (in this process).
func startServer(t *testing.T, content []byte, idle time.Duration, removeOnExit bool) (addr, file, sum string, done chan struct{}) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "artifact")
	if err := os.WriteFile(file, content, 0o600); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(content)
	sum = hex.EncodeToString(h[:])
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{flags: &serveFlags{file: file, sum: sum, size: int64(len(content)), idle: idle, lifetime: time.Minute, removeOnExit: removeOnExit}, token: testToken}
	done = make(chan struct{})
	go func() { s.run(ln); close(done) }()
	return ln.Addr().String(), file, sum, done
}

func TestFetchLandsTheFileWhenSizeAndSumMatch(t *testing.T) {
	content := []byte(strings.Repeat("kcluster artifact ", 100000))
	addr, _, sum, _ := startServer(t, content, time.Second, false)
	out := filepath.Join(t.TempDir(), "sub", "kubelet")
	if err := fetch(&fetchFlags{from: addr, sum: sum, out: out, size: int64(len(content)), timeout: 10 * time.Second}, testToken, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != string(content) {
		t.Fatalf("the fetched file differs (%v)", err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want 0755", st.Mode().Perm())
	}
}

func TestFetchRefusesAWrongTokenAndLeavesNothing(t *testing.T) {
	addr, _, sum, _ := startServer(t, []byte("abc"), time.Second, false)
	dir := t.TempDir()
	err := fetch(&fetchFlags{from: addr, sum: sum, out: filepath.Join(dir, "x"), size: 3, timeout: 5 * time.Second}, strings.Repeat("f", 32), 0o600)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %d files behind", len(entries))
	}
}

func TestFetchRefusesBytesWhoseSumIsNotTheExpectedOne(t *testing.T) {
	addr, file, sum, _ := startServer(t, []byte("good bytes"), time.Second, false)
	// The holder's copy changed after the server started (same size, other bytes).
	if err := os.WriteFile(file, []byte("evil bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "x")
	err := fetch(&fetchFlags{from: addr, sum: sum, out: out, size: 10, timeout: 5 * time.Second}, testToken, 0o600)
	if err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("want a sum mismatch, got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %d files behind", len(entries))
	}
}

func TestFetchRefusesAnotherSizeThanExpected(t *testing.T) {
	addr, _, sum, _ := startServer(t, []byte("abcdef"), time.Second, false)
	err := fetch(&fetchFlags{from: addr, sum: sum, out: filepath.Join(t.TempDir(), "x"), size: 5, timeout: 5 * time.Second}, testToken, 0o600)
	if err == nil || !strings.Contains(err.Error(), "offers 6 bytes") {
		t.Fatalf("want a size refusal, got %v", err)
	}
}

func TestServerExitsWhenIdleAndRemovesItsFile(t *testing.T) {
	_, file, _, done := startServer(t, []byte("staged image"), 300*time.Millisecond, true)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit after its idle time")
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the served file is still there (%v)", err)
	}
}

func TestFetchFromNothingListeningFails(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	err := fetch(&fetchFlags{from: addr, sum: strings.Repeat("0", 64), out: filepath.Join(t.TempDir(), "x"), size: 1, timeout: 2 * time.Second}, testToken, 0o600)
	if err == nil || !strings.Contains(err.Error(), "connecting to") {
		t.Fatalf("want a connect error, got %v", err)
	}
}

func TestReadTokenRefusesWhatIsNotHex(t *testing.T) {
	if _, err := readToken(strings.NewReader("short\n")); err == nil {
		t.Fatal("a short token was accepted")
	}
	if tok, err := readToken(strings.NewReader(testToken + "\n")); err != nil || tok != testToken {
		t.Fatalf("a good token was refused: %v", err)
	}
}
