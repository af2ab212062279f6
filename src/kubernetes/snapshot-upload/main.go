// kcluster-snapshot-upload: copies a control plane's scheduled etcd snapshots into the
// cluster's state store (roles/etcd-snapshot-schedule), sealed for the state key it never holds
// (seal.go), then applies the store's retention to this host's copies. It uploads every local
// scheduled snapshot that has no ".uploaded" mark beside it, oldest first, so a run after an
// outage catches up on what the host still keeps; the mark is written only after the store
// accepted the object. Go standard
// library only; built into the kcluster bundle.
//
//	kcluster-snapshot-upload -config /etc/kcluster/snapshot-upload.json
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

const version = "1"

// config is what the role writes (0600, root only: it holds the upload credential).
type config struct {
	Endpoint        string `json:"endpoint"`
	Bucket          string `json:"bucket"`
	Region          string `json:"region"`
	PathStyle       bool   `json:"pathStyle"`
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`
	SessionToken    string `json:"sessionToken,omitempty"`
	// The store's prefix ("" or folders ending in "/"), and this host's folder under it.
	StorePrefix string `json:"storePrefix"`
	Folder      string `json:"folder"`
	Recipient   string `json:"recipient"`
	Kid         string `json:"kid"`
	// Where the scheduled snapshots are on this host, and the file names they have.
	LocalDir   string `json:"localDir"`
	NamePrefix string `json:"namePrefix"`
	Keep       int    `json:"keep"`
	MaxAgeDays int    `json:"maxAgeDays,omitempty"`
}

func readConfig(path string) (config, error) {
	var c config
	raw, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.Endpoint == "" || c.Bucket == "" || c.Region == "" || c.AccessKeyID == "" || c.SecretAccessKey == "" || c.Recipient == "" || c.LocalDir == "" || c.NamePrefix == "" || c.Keep < 1 {
		return c, fmt.Errorf("%s: endpoint, bucket, region, accessKeyId, secretAccessKey, recipient, localDir, namePrefix and keep (1 or more) are required: run kcluster apply to write it again", path)
	}
	return c, nil
}

const uploadedMark = ".uploaded"

// pending lists the local snapshots without an upload mark, oldest first (names sort by time),
// and removes marks whose snapshot the local pruning took and the sealed copies a killed run left.
func pending(c config) ([]string, error) {
	entries, err := os.ReadDir(c.LocalDir)
	if err != nil {
		return nil, err
	}
	name := regexp.MustCompile("^" + regexp.QuoteMeta(c.NamePrefix) + `[0-9TZ-]+\.db$`)
	present := map[string]bool{}
	for _, e := range entries {
		present[e.Name()] = true
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if name.MatchString(n) && !present[n+uploadedMark] {
			out = append(out, n)
		}
		if strings.HasSuffix(n, uploadedMark) && !present[strings.TrimSuffix(n, uploadedMark)] {
			os.Remove(filepath.Join(c.LocalDir, n))
		}
		if strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".kcp.partial") {
			os.Remove(filepath.Join(c.LocalDir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// sealToFile seals the snapshot beside it (never leaving the folder, which is root's only) and returns the sealed file's sha256.
func sealToFile(r recipient, statePath, from, into string) (string, error) {
	in, err := os.Open(from)
	if err != nil {
		return "", err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return "", err
	}
	out, err := os.OpenFile(into, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	hash := sha256.New()
	if err := seal(r, statePath, in, info.Size(), io.MultiWriter(out, hash)); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(hash.Sum(nil)), nil
}

// withRetries tries `f` up to three times, 2 s and then 8 s apart: a store that blinks does not cost a period's copy.
func withRetries(f func() error) error {
	var err error
	for attempt, pause := 0, 2*time.Second; attempt < 3; attempt, pause = attempt+1, pause*4 {
		if err = f(); err == nil {
			return nil
		}
		if attempt < 2 {
			time.Sleep(pause)
		}
	}
	return err
}

func upload(c config, s *store, to recipient, name string) error {
	statePath := c.Folder + name
	key := c.StorePrefix + statePath + ".kcp"
	sealed := filepath.Join(c.LocalDir, "."+name+".kcp.partial")
	defer os.Remove(sealed)
	sum, err := sealToFile(to, statePath, filepath.Join(c.LocalDir, name), sealed)
	if err != nil {
		return fmt.Errorf("sealing %s: %w", name, err)
	}
	if err := withRetries(func() error { return s.putFile(key, sealed, sum) }); err != nil {
		return err
	}
	info, _ := os.Stat(sealed)
	mark := fmt.Sprintf("%s %s %s\n", time.Now().UTC().Format(time.RFC3339), key, sum)
	if err := os.WriteFile(filepath.Join(c.LocalDir, name+uploadedMark), []byte(mark), 0o600); err != nil {
		return err
	}
	fmt.Printf("uploaded %s to s3://%s/%s (%d bytes sealed, sha256 %s)\n", name, c.Bucket, key, info.Size(), sum)
	return nil
}

// toPrune: beyond the newest `keep`, or older than maxAgeDays; the newest always stays.
func toPrune(objects []listedObject, keep, maxAgeDays int, now time.Time) []listedObject {
	sort.Slice(objects, func(i, j int) bool { return objects[i].Key > objects[j].Key })
	var out []listedObject
	for i, o := range objects {
		tooOld := maxAgeDays > 0 && now.Sub(o.LastModified) > time.Duration(maxAgeDays)*24*time.Hour
		if i > 0 && (i >= keep || tooOld) {
			out = append(out, o)
		}
	}
	return out
}

func prune(c config, s *store) error {
	var listed []listedObject
	if err := withRetries(func() (err error) { listed, err = s.list(c.StorePrefix + c.Folder); return }); err != nil {
		return err
	}
	var sealed []listedObject
	for _, o := range listed {
		if strings.HasSuffix(o.Key, ".db.kcp") {
			sealed = append(sealed, o)
		}
	}
	for _, o := range toPrune(sealed, c.Keep, c.MaxAgeDays, time.Now()) {
		if err := withRetries(func() error { return s.delete(o.Key) }); err != nil {
			return err
		}
		fmt.Printf("removed s3://%s/%s from the store (the newest %d kept)\n", c.Bucket, o.Key, c.Keep)
	}
	return nil
}

func run(configPath string) error {
	c, err := readConfig(configPath)
	if err != nil {
		return err
	}
	to, err := parseRecipient(c.Recipient, c.Kid)
	if err != nil {
		return fmt.Errorf("%s: %w", configPath, err)
	}
	endpoint, err := url.Parse(c.Endpoint)
	if err != nil || (endpoint.Scheme != "http" && endpoint.Scheme != "https") || endpoint.Host == "" {
		return fmt.Errorf("%s: endpoint %q is not an http(s) URL", configPath, c.Endpoint)
	}
	s := &store{endpoint: endpoint, bucket: c.Bucket, region: c.Region, pathStyle: c.PathStyle, accessKeyID: c.AccessKeyID, secretKey: c.SecretAccessKey,
		sessionToken: c.SessionToken, client: &http.Client{Timeout: 30 * time.Minute}, now: time.Now}
	names, err := pending(c)
	if err != nil {
		return err
	}
	failed := 0
	for _, name := range names {
		if err := upload(c, s, to, name); err != nil {
			// The snapshot stays on the host without a mark: the next run tries it again.
			fmt.Fprintf(os.Stderr, "not uploaded: %s: %v\n", name, err)
			failed++
		}
	}
	if failed > 0 {
		// Retention waits for a run whose copies all arrived: it never thins the store while this host's newest is missing there.
		return fmt.Errorf("%d of %d snapshot(s) not uploaded; they stay in %s and the next run tries again", failed, len(names), c.LocalDir)
	}
	if err := prune(c, s); err != nil {
		return fmt.Errorf("retention in the store: %w", err)
	}
	if len(names) == 0 {
		fmt.Println("nothing to upload: every scheduled snapshot here is in the store")
	}
	return nil
}

func main() {
	configPath := flag.String("config", "/etc/kcluster/snapshot-upload.json", "the upload's settings, written by kcluster apply")
	showVersion := flag.Bool("version", false, "print the version")
	flag.Parse()
	if *showVersion {
		fmt.Println("kcluster-snapshot-upload " + version)
		return
	}
	if err := run(*configPath); err != nil {
		fmt.Fprintln(os.Stderr, "kcluster-snapshot-upload: "+err.Error())
		os.Exit(1)
	}
}
