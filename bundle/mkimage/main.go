// mkimage: build a single-platform (linux/ARCH, -arch) OCI image archive from local
// root-filesystem directories, without a docker daemon or a registry.
//
// The output tar is an OCI image layout (oci-layout, index.json, blobs/sha256/*)
// that ALSO carries a docker-archive manifest.json, so both
// `ctr -n k8s.io images import` and `docker load` accept it.
//
// Each -layer DIR becomes one gzip layer (sorted entries, mtime 0, uid/gid 0 =>
// byte-for-byte reproducible). Symlinks are kept; hardlinks become copies.
//
// Usage:
//
//	mkimage -name kcluster.local/pause:3.10.1 -out pause.tar \
//	        -entrypoint /pause -user 65535:65535 -layer ./rootfs
//
// Used by build-bundle.sh; Go standard library only.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

type blob struct {
	digest string
	data   []byte
}

func newBlob(b []byte) blob {
	h := sha256.Sum256(b)
	return blob{"sha256:" + hex.EncodeToString(h[:]), b}
}

var epoch = time.Unix(0, 0).UTC()

// layerTar returns the uncompressed tar of dir (for diff_id) and its gzip.
func layerTar(dir string) (raw, gz []byte, err error) {
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, e error) error {
		if e != nil {
			return e
		}
		if p != dir {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, nil, err
		}
		rel, _ := filepath.Rel(dir, p)
		link := ""
		if fi.Mode()&os.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return nil, nil, err
			}
		}
		h, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return nil, nil, err
		}
		h.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			h.Name += "/"
		}
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		h.ModTime, h.AccessTime, h.ChangeTime = epoch, time.Time{}, time.Time{}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return nil, nil, err
		}
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return nil, nil, err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return nil, nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, nil, err
	}
	var zb bytes.Buffer
	zw, err := gzip.NewWriterLevel(&zb, gzip.DefaultCompression)
	if err != nil {
		return nil, nil, err
	}
	if _, err := zw.Write(buf.Bytes()); err != nil {
		return nil, nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), zb.Bytes(), nil
}

func main() {
	var layers, env, labels multi
	name := flag.String("name", "", "full image reference, e.g. kcluster.local/pause:3.10.1")
	out := flag.String("out", "", "output tar")
	entry := flag.String("entrypoint", "", "entrypoint, comma separated argv")
	cmd := flag.String("cmd", "", "cmd, comma separated argv")
	user := flag.String("user", "", "user[:group]")
	wd := flag.String("workdir", "", "working dir")
	arch := flag.String("arch", "", "the image's architecture as Go names it (amd64, arm64)")
	flag.Var(&layers, "layer", "rootfs directory for one layer (repeatable, bottom first)")
	flag.Var(&env, "env", "KEY=VALUE (repeatable)")
	flag.Var(&labels, "label", "KEY=VALUE (repeatable)")
	flag.Parse()
	if *name == "" || *out == "" || len(layers) == 0 || *arch == "" {
		flag.Usage()
		os.Exit(2)
	}
	// The platform as runtimes match it: arm64 images carry variant v8 (the OCI convention).
	platform := map[string]string{"architecture": *arch, "os": "linux"}
	if *arch == "arm64" {
		platform["variant"] = "v8"
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	if len(env) == 0 {
		env = multi{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	lbl := map[string]string{}
	for _, l := range labels {
		k, v, _ := strings.Cut(l, "=")
		lbl[k] = v
	}

	var blobs []blob
	var diffIDs []string
	var layerDescs []map[string]any
	var dockerLayers []string
	for _, d := range layers {
		raw, gz, err := layerTar(d)
		if err != nil {
			fmt.Fprintln(os.Stderr, "layer", d, ":", err)
			os.Exit(1)
		}
		rh := sha256.Sum256(raw)
		diffIDs = append(diffIDs, "sha256:"+hex.EncodeToString(rh[:]))
		b := newBlob(gz)
		blobs = append(blobs, b)
		layerDescs = append(layerDescs, map[string]any{
			"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
			"digest":    b.digest, "size": len(gz)})
		dockerLayers = append(dockerLayers, "blobs/sha256/"+strings.TrimPrefix(b.digest, "sha256:"))
	}
	cfg := map[string]any{
		"architecture": *arch, "os": "linux", "created": epoch.Format(time.RFC3339),
		"config": map[string]any{
			"Entrypoint": split(*entry), "Cmd": split(*cmd), "Env": []string(env),
			"User": *user, "WorkingDir": *wd, "Labels": lbl},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": diffIDs},
		"history": []map[string]any{{"created": epoch.Format(time.RFC3339), "created_by": "kcluster mkimage"}},
	}
	if v, ok := platform["variant"]; ok {
		cfg["variant"] = v
	}
	cb, _ := json.Marshal(cfg)
	cfgBlob := newBlob(cb)
	blobs = append(blobs, cfgBlob)
	man := map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json",
			"digest": cfgBlob.digest, "size": len(cb)},
		"layers": layerDescs,
	}
	mb, _ := json.Marshal(man)
	manBlob := newBlob(mb)
	blobs = append(blobs, manBlob)
	tag := *name
	if i := strings.LastIndex(tag, ":"); i > strings.LastIndex(tag, "/") {
		tag = tag[i+1:]
	} else {
		tag = "latest"
	}
	index := map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.index.v1+json",
		"manifests": []map[string]any{{
			"mediaType": "application/vnd.oci.image.manifest.v1+json",
			"digest":    manBlob.digest, "size": len(mb),
			"platform": platform,
			"annotations": map[string]string{
				"io.containerd.image.name":          *name, // ctr import uses this name as is
				"org.opencontainers.image.ref.name": tag,   // OCI convention: tag only
			}}},
	}
	ib, _ := json.Marshal(index)
	dm, _ := json.Marshal([]map[string]any{{
		"Config":   "blobs/sha256/" + strings.TrimPrefix(cfgBlob.digest, "sha256:"),
		"RepoTags": []string{*name}, "Layers": dockerLayers}})

	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tw := tar.NewWriter(f)
	fail := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkimage:", *out, ":", err)
			os.Exit(1)
		}
	}
	add := func(n string, b []byte) {
		fail(tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b)), ModTime: epoch, Typeflag: tar.TypeReg}))
		_, err := tw.Write(b)
		fail(err)
	}
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		fail(tw.WriteHeader(&tar.Header{Name: d, Mode: 0o755, ModTime: epoch, Typeflag: tar.TypeDir}))
	}
	add("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`))
	seen := map[string]bool{}
	for _, b := range blobs {
		if !seen[b.digest] {
			seen[b.digest] = true
			add("blobs/sha256/"+strings.TrimPrefix(b.digest, "sha256:"), b.data)
		}
	}
	add("index.json", ib)
	add("manifest.json", dm)
	if err := tw.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fail(f.Close())
	fmt.Println(*name, manBlob.digest)
}
