// kcluster-relay: passes a verified artifact (a binary or an image archive) from one node to
// another over the cluster network, so that the controller sends each artifact only to a few
// nodes (roles/artifacts/README.md, "Fan-out"). Go standard library only; built into the bundle.
//
//	kcluster-relay serve -listen ADDR -file PATH -sha256 HEX -size N [-remove-on-exit] [-idle 60s] [-lifetime 15m] [-log FILE]
//	kcluster-relay fetch -from ADDR:PORT -sha256 HEX -size N -out PATH [-mode 0644] [-timeout 120s]
//
// Both read a one-time token on the first line of stdin (never argv). serve starts a detached
// server (its own session, so it outlives the SSH command that started it), prints "port N"
// once it listens, and returns; the server answers a client that presents the token and the
// file's sha256 with the file, and exits (removing the file with -remove-on-exit) after -idle
// without a client or -lifetime in all. fetch writes to a temporary file beside -out and
// renames it into place only when its size and sha256 are the expected ones; otherwise it
// removes it and exits non-zero, saying why on stderr.
package main

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const version = "1"

// The request line a client sends, and the answer's first line.
const greeting = "KCRELAY1"

func main() {
	if len(os.Args) < 2 {
		fail(2, "usage: kcluster-relay serve|fetch [flags] (the token on stdin's first line); kcluster-relay -version")
	}
	var err error
	switch os.Args[1] {
	case "-version", "--version", "version":
		fmt.Printf("kcluster-relay %s\n", version)
		return
	case "serve":
		err = serveCommand(os.Args[2:], false)
	case "serve-detached":
		err = serveCommand(os.Args[2:], true)
	case "fetch":
		err = fetchCommand(os.Args[2:])
	default:
		fail(2, fmt.Sprintf("unknown command %q: serve or fetch", os.Args[1]))
	}
	if err != nil {
		fail(1, err.Error())
	}
}

func fail(code int, message string) {
	fmt.Fprintf(os.Stderr, "kcluster-relay: %s\n", message)
	os.Exit(code)
}

// readToken reads the first line of r: 32 to 256 characters of [0-9a-f].
func readToken(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("no token on stdin's first line: %v", err)
	}
	token := strings.TrimSpace(line)
	if len(token) < 32 || len(token) > 256 || strings.Trim(token, "0123456789abcdef") != "" {
		return "", errors.New("the token on stdin must be 32-256 lower-case hex digits")
	}
	return token, nil
}

type serveFlags struct {
	listen, file, sum, logFile string
	size                       int64
	removeOnExit               bool
	idle, lifetime             time.Duration
}

func parseServe(args []string) (*serveFlags, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f := &serveFlags{}
	fs.StringVar(&f.listen, "listen", "", "address to listen on (host:0 for an ephemeral port)")
	fs.StringVar(&f.file, "file", "", "the file to serve")
	fs.StringVar(&f.sum, "sha256", "", "its sha256 (clients ask for it by this sum)")
	fs.Int64Var(&f.size, "size", -1, "its size in bytes")
	fs.BoolVar(&f.removeOnExit, "remove-on-exit", false, "remove the file when the server exits")
	fs.DurationVar(&f.idle, "idle", 60*time.Second, "exit after this long without a client")
	fs.DurationVar(&f.lifetime, "lifetime", 15*time.Minute, "exit after this long in all")
	fs.StringVar(&f.logFile, "log", "", "the detached server's log file (default none)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.listen == "" || f.file == "" || len(f.sum) != 64 || f.size < 0 || f.idle <= 0 || f.lifetime <= 0 {
		return nil, errors.New("serve needs -listen, -file, -sha256 (64 hex digits), -size, and positive -idle and -lifetime")
	}
	return f, nil
}

func serveCommand(args []string, detached bool) error {
	f, err := parseServe(args)
	if err != nil {
		return err
	}
	token, err := readToken(os.Stdin)
	if err != nil {
		return err
	}
	if !detached {
		return startDetached(args, token, f)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %v", f.listen, err)
	}
	fmt.Printf("port %d\n", ln.Addr().(*net.TCPAddr).Port)
	os.Stdout.Close()
	s := &server{flags: f, token: token}
	s.run(ln)
	return nil
}

// startDetached runs this program again as "serve-detached" in its own session, with the token
// on its stdin, waits for the port it listens on and prints it.
func startDetached(args []string, token string, f *serveFlags) error {
	if st, err := os.Stat(f.file); err != nil {
		return fmt.Errorf("the file to serve: %v", err)
	} else if st.Size() != f.size {
		return fmt.Errorf("%s has %d bytes, not %d", f.file, st.Size(), f.size)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logOut, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if f.logFile != "" {
		logOut, err = os.OpenFile(f.logFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	}
	if err != nil {
		return err
	}
	defer logOut.Close()
	cmd := exec.Command(self, append([]string{"serve-detached"}, args...)...)
	cmd.Stdin = strings.NewReader(token + "\n")
	cmd.Stderr = logOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "port ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("the server did not start (see %s): %q %v", orNone(f.logFile), line, err)
	}
	fmt.Print(line)
	return cmd.Process.Release()
}

func orNone(s string) string {
	if s == "" {
		return "no log: -log not given"
	}
	return s
}

type server struct {
	flags  *serveFlags
	token  string
	mu     sync.Mutex
	active int
	last   time.Time
}

func (s *server) logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, a...))
}

// run accepts clients until it has been idle (no client in progress) for -idle, or -lifetime passed.
func (s *server) run(ln net.Listener) {
	defer func() {
		if s.flags.removeOnExit {
			if err := os.Remove(s.flags.file); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.logf("removing %s: %v", s.flags.file, err)
			}
		}
	}()
	s.last = time.Now()
	deadline := time.Now().Add(s.flags.lifetime)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			s.mu.Lock()
			idle := s.active == 0 && time.Since(s.last) >= s.flags.idle
			s.mu.Unlock()
			if idle || time.Now().After(deadline) {
				ln.Close()
				close(done)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for {
		conn, err := ln.Accept()
		if err != nil {
			break
		}
		s.mu.Lock()
		s.active++
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(conn)
			s.mu.Lock()
			s.active--
			s.last = time.Now()
			s.mu.Unlock()
		}()
	}
	<-done
	// Clients in progress finish (each under its own deadline) before the file goes.
	wg.Wait()
	s.logf("exiting")
}

func (s *server) handle(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(io.LimitReader(conn, 512)).ReadString('\n')
	if err != nil {
		s.logf("%s: no request: %v", conn.RemoteAddr(), err)
		return
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || fields[0] != greeting || subtle.ConstantTimeCompare([]byte(fields[1]), []byte(s.token)) != 1 {
		s.logf("%s: refused: not a request with the token", conn.RemoteAddr())
		fmt.Fprintf(conn, "ERR refused\n")
		return
	}
	if fields[2] != s.flags.sum {
		fmt.Fprintf(conn, "ERR this server holds sha256 %s, not %s\n", s.flags.sum, fields[2])
		return
	}
	file, err := os.Open(s.flags.file)
	if err != nil {
		fmt.Fprintf(conn, "ERR %v\n", err)
		return
	}
	defer file.Close()
	// A transfer gets a minute per 64 MiB, at least two.
	_ = conn.SetDeadline(time.Now().Add(2*time.Minute + time.Duration(s.flags.size/(64<<20))*time.Minute))
	if _, err := fmt.Fprintf(conn, "OK %d\n", s.flags.size); err != nil {
		return
	}
	n, err := io.Copy(conn, file)
	s.logf("%s: sent %d bytes of %s (%v)", conn.RemoteAddr(), n, s.flags.file, err)
}

type fetchFlags struct {
	from, sum, out string
	size           int64
	mode           string
	timeout        time.Duration
}

func fetchCommand(args []string) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	f := &fetchFlags{}
	fs.StringVar(&f.from, "from", "", "the server, host:port")
	fs.StringVar(&f.sum, "sha256", "", "the expected sha256")
	fs.Int64Var(&f.size, "size", -1, "the expected size in bytes")
	fs.StringVar(&f.out, "out", "", "where the file lands once checked")
	fs.StringVar(&f.mode, "mode", "0600", "its mode (octal)")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, err := strconv.ParseUint(f.mode, 8, 32)
	if f.from == "" || f.out == "" || len(f.sum) != 64 || f.size < 0 || err != nil || f.timeout <= 0 {
		return errors.New("fetch needs -from, -out, -sha256 (64 hex digits), -size, an octal -mode and a positive -timeout")
	}
	token, err := readToken(os.Stdin)
	if err != nil {
		return err
	}
	return fetch(f, token, os.FileMode(mode))
}

func fetch(f *fetchFlags, token string, mode os.FileMode) error {
	conn, err := net.DialTimeout("tcp", f.from, 5*time.Second)
	if err != nil {
		return fmt.Errorf("connecting to %s: %v", f.from, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(f.timeout))
	if _, err := fmt.Fprintf(conn, "%s %s %s\n", greeting, token, f.sum); err != nil {
		return fmt.Errorf("%s: %v", f.from, err)
	}
	r := bufio.NewReader(conn)
	answer, err := r.ReadString('\n')
	if err != nil {
		return fmt.Errorf("%s: no answer: %v", f.from, err)
	}
	answer = strings.TrimSpace(answer)
	if !strings.HasPrefix(answer, "OK ") {
		return fmt.Errorf("%s answered: %s", f.from, answer)
	}
	if announced, err := strconv.ParseInt(strings.TrimPrefix(answer, "OK "), 10, 64); err != nil || announced != f.size {
		return fmt.Errorf("%s offers %s bytes, not the expected %d", f.from, strings.TrimPrefix(answer, "OK "), f.size)
	}
	dir := filepath.Dir(f.out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.out)+".relay-*")
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	hash := sha256.New()
	// One byte more than expected reveals a longer file.
	n, err := io.Copy(io.MultiWriter(tmp, hash), io.LimitReader(r, f.size+1))
	if err != nil {
		return fmt.Errorf("receiving from %s after %d bytes: %v", f.from, n, err)
	}
	got := hex.EncodeToString(hash.Sum(nil))
	if n != f.size || got != f.sum {
		return fmt.Errorf("%s sent %d bytes with sha256 %s, expected %d bytes with sha256 %s: nothing written to %s", f.from, n, got, f.size, f.sum, f.out)
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), f.out); err != nil {
		return err
	}
	keep = true
	return nil
}
