package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// open is the controller's side (src/orchestrator/state-store/recipient-envelope.ts), here only to check seal.
func open(private *ecdh.PrivateKey, sealed []byte) (header, []byte, error) {
	var h header
	if len(sealed) < 6 || string(sealed[:4]) != magic {
		return h, nil, fmt.Errorf("no %s magic", magic)
	}
	n := int(binary.BigEndian.Uint16(sealed[4:6]))
	aad := sealed[:6+n]
	if err := json.Unmarshal(sealed[6:6+n], &h); err != nil {
		return h, nil, err
	}
	epk, _ := base64.StdEncoding.DecodeString(h.Epk)
	ephemeral, err := ecdh.X25519().NewPublicKey(epk)
	if err != nil {
		return h, nil, err
	}
	shared, _ := private.ECDH(ephemeral)
	prefix := sealed[6+n : 6+n+prefixBytes]
	key, _ := dataKey(shared, prefix, epk, private.PublicKey().Bytes())
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	body := sealed[6+n+prefixBytes:]
	var plain []byte
	size := h.Chunk + 16
	for i := 0; len(body) > 0; i++ {
		end := min(size, len(body))
		chunk, err := gcm.Open(nil, nonceOf(prefix, uint32(i), end == len(body)), body[:end], aad)
		if err != nil {
			return h, nil, fmt.Errorf("chunk %d: %w", i+1, err)
		}
		plain = append(plain, chunk...)
		body = body[end:]
	}
	return h, plain, nil
}

func TestSealOpensWithTheRecipientsPrivateKeyAcrossChunks(t *testing.T) {
	private, _ := ecdh.X25519().GenerateKey(rand.Reader)
	to := recipient{public: private.PublicKey(), kid: "ks-0123456789abcdef"}
	for _, size := range []int{0, 5, chunkBytes, chunkBytes*2 + 17} {
		plain := make([]byte, size)
		rand.Read(plain)
		var out bytes.Buffer
		if err := seal(to, "scheduled-snapshots/cp1/x.db", bytes.NewReader(plain), int64(size), &out); err != nil {
			t.Fatal(err)
		}
		h, opened, err := open(private, out.Bytes())
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if !bytes.Equal(opened, plain) || h.Path != "scheduled-snapshots/cp1/x.db" || h.Kid != to.kid || h.Alg != "X25519-A256GCM-STREAM" {
			t.Fatalf("size %d: opened %d bytes, header %+v", size, len(opened), h)
		}
	}
}

func TestAChangedByteOrAnotherKeyFailsToOpen(t *testing.T) {
	private, _ := ecdh.X25519().GenerateKey(rand.Reader)
	var out bytes.Buffer
	if err := seal(recipient{public: private.PublicKey(), kid: "k"}, "p", bytes.NewReader([]byte("snapshot")), 8, &out); err != nil {
		t.Fatal(err)
	}
	if _, _, err := open(private, out.Bytes()); err != nil {
		t.Fatalf("the untouched object: %v", err)
	}
	other, _ := ecdh.X25519().GenerateKey(rand.Reader)
	if _, _, err := open(other, out.Bytes()); err == nil {
		t.Fatal("another private key opened it")
	}
	changed := out.Bytes()
	changed[len(changed)-20] ^= 1
	if _, _, err := open(private, changed); err == nil {
		t.Fatal("a changed byte opened")
	}
}

// The example of AWS's Signature Version 4 documentation for S3 (GET Object with a Range header).
func TestSignMatchesAWSsDocumentedExample(t *testing.T) {
	u, _ := url.Parse("https://examplebucket.s3.amazonaws.com/test.txt")
	headers := map[string]string{"range": "bytes=0-9"}
	now, _ := time.Parse("20060102T150405Z", "20130524T000000Z")
	sign("GET", u, headers, emptySHA256, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", "us-east-1", now)
	want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
	if headers["authorization"] != want {
		t.Fatalf("got %s", headers["authorization"])
	}
}

func TestObjectURLEncodesKeysAsTheyAreSigned(t *testing.T) {
	endpoint, _ := url.Parse("http://10.231.24.1:9000")
	s := &store{endpoint: endpoint, bucket: "state", pathStyle: true}
	u := s.objectURL("team/scheduled-snapshots/cp1/etcd-scheduled-cp1-2026-11-28T10:00:00Z+x.db.kcp", url.Values{})
	if got := u.String(); got != "http://10.231.24.1:9000/state/team/scheduled-snapshots/cp1/etcd-scheduled-cp1-2026-11-28T10%3A00%3A00Z%2Bx.db.kcp" {
		t.Fatalf("got %s", got)
	}
	virtual := &store{endpoint: endpoint, bucket: "state"}
	if got := virtual.objectURL("", url.Values{"list-type": {"2"}, "prefix": {"a/b"}}).String(); got != "http://state.10.231.24.1:9000/?list-type=2&prefix=a%2Fb" {
		t.Fatalf("got %s", got)
	}
}

func TestToPruneKeepsTheNewestAndDropsBeyondKeepOrAge(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	objects := []listedObject{
		{Key: "f/a-2026-11-20.db.kcp", LastModified: now.Add(-8 * day)},
		{Key: "f/a-2026-11-27.db.kcp", LastModified: now.Add(-1 * day)},
		{Key: "f/a-2026-11-28.db.kcp", LastModified: now},
		{Key: "f/a-2026-11-26.db.kcp", LastModified: now.Add(-2 * day)},
	}
	keys := func(os []listedObject) []string {
		var out []string
		for _, o := range os {
			out = append(out, o.Key)
		}
		return out
	}
	if got := keys(toPrune(append([]listedObject{}, objects...), 2, 0, now)); len(got) != 2 || got[0] != "f/a-2026-11-26.db.kcp" || got[1] != "f/a-2026-11-20.db.kcp" {
		t.Fatalf("keep 2: %v", got)
	}
	if got := keys(toPrune(append([]listedObject{}, objects...), 10, 7, now)); len(got) != 1 || got[0] != "f/a-2026-11-20.db.kcp" {
		t.Fatalf("7 days: %v", got)
	}
	old := []listedObject{{Key: "f/a-2026-01-01.db.kcp", LastModified: now.Add(-300 * day)}}
	if got := toPrune(old, 1, 7, now); len(got) != 0 {
		t.Fatalf("the newest went: %v", keys(got))
	}
}

func TestPendingSkipsMarkedSnapshotsAndDropsOrphanMarks(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"etcd-scheduled-cp1-2026-11-28T10-00-00Z.db", "etcd-scheduled-cp1-2026-11-28T10-00-00Z.db.uploaded",
		"etcd-scheduled-cp1-2026-11-28T22-00-00Z.db", "etcd-scheduled-cp1-2026-11-28T16-00-00Z.db",
		"etcd-scheduled-cp1-2026-11-27T10-00-00Z.db.uploaded", ".etcd-scheduled-cp1-2026-11-29T10-00-00Z.db.partial", "by-hand.db",
		".etcd-scheduled-cp1-2026-11-28T04-00-00Z.db.kcp.partial",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	got, err := pending(config{LocalDir: dir, NamePrefix: "etcd-scheduled-cp1-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "etcd-scheduled-cp1-2026-11-28T16-00-00Z.db" || got[1] != "etcd-scheduled-cp1-2026-11-28T22-00-00Z.db" {
		t.Fatalf("pending %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd-scheduled-cp1-2026-11-27T10-00-00Z.db.uploaded")); !os.IsNotExist(err) {
		t.Fatal("an orphan mark stayed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".etcd-scheduled-cp1-2026-11-28T04-00-00Z.db.kcp.partial")); !os.IsNotExist(err) {
		t.Fatal("a killed run's sealed copy stayed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".etcd-scheduled-cp1-2026-11-29T10-00-00Z.db.partial")); err != nil {
		t.Fatal("the snapshot script's own partial file was removed")
	}
}
