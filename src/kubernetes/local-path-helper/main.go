// kcluster-local-path-helper: what rancher's local-path-provisioner runs in its helper pod to
// create or delete a volume's folder on a node, without a shell in the image. The provisioner
// runs it as its setupCommand and teardownCommand (config.json) with the arguments
//
//	-p <volume folder> -s <size in bytes> -m <Filesystem|Block> -a <create|delete>
//
// and does the same as upstream's default scripts: create: `mkdir -m 0777 -p "$VOL_DIR"`;
// delete: `rm -rf "$VOL_DIR"`. Go standard library only; built into the kcluster bundle.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// version is the bundle's, set at build time.
var version = "dev"

func main() {
	path := flag.String("p", "", "the volume's folder (absolute)")
	flag.String("s", "", "the volume's size in bytes (not enforced, as upstream's scripts)")
	flag.String("m", "", "the volume mode (Filesystem or Block; not used, as upstream's scripts)")
	action := flag.String("a", "", "create or delete")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("kcluster-local-path-helper", version)
		return
	}
	if err := run(*action, *path); err != nil {
		fmt.Fprintln(os.Stderr, "kcluster-local-path-helper:", err)
		os.Exit(1)
	}
}

func run(action, path string) error {
	clean := filepath.Clean(path)
	if path == "" || !filepath.IsAbs(clean) || filepath.Dir(clean) == clean {
		return fmt.Errorf("-p %q: want the absolute path of a volume folder (not /)", path)
	}
	switch action {
	case "create":
		return create(clean)
	case "delete":
		fmt.Println("deleting", clean)
		return os.RemoveAll(clean)
	default:
		return fmt.Errorf("-a %q: want create or delete", action)
	}
}

// create makes the folder world-writable (any pod's user may write its volume), as `mkdir -m
// 0777 -p` does: parents with the default mode, the folder's mode set only when it is created.
func create(path string) error {
	if _, err := os.Stat(path); err == nil {
		fmt.Println("exists", path)
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(path, 0o777); err != nil {
		return err
	}
	fmt.Println("created", path)
	return os.Chmod(path, 0o777)
}
