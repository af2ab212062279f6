// Command config-fields prints, as JSON, the fields the kubelet's KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1) and kube-proxy's KubeProxyConfiguration
// (kubeproxy.config.k8s.io/v1alpha1) accept, read by reflection from the Kubernetes API types
// of the k8s.io/kubelet and k8s.io/kube-proxy modules it is built against: json tags give the
// names, inline and embedded structs are flattened, nested structs, maps and lists are
// described with their own fields. src/kubernetes/cluster/write-config-fields.ts
// (npm run gen:config-fields) builds it once per minor of the version table.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strings"

	kubeproxy "k8s.io/kube-proxy/config/v1alpha1"
	kubelet "k8s.io/kubelet/config/v1beta1"
)

// Node is one value of the configuration: its kind, and for objects, maps and lists what they hold.
type Node struct {
	Kind   string           `json:"kind"`
	Fields map[string]*Node `json:"fields,omitempty"`
	Values *Node            `json:"values,omitempty"`
	Items  *Node            `json:"items,omitempty"`
}

// Types whose JSON form is not their Go structure (they decode themselves), by package path and name.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":        "duration",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":        "quantity",
	"k8s.io/apimachinery/pkg/api/resource.QuantityValue":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":      "intOrString",
	"k8s.io/component-base/logs/api/v1.TimeOrMetaDuration": "durationOrInt",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":         "any",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":            "string",
}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

func describe(t reflect.Type, path string, seen map[reflect.Type]bool) *Node {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.PkgPath() + "." + t.Name()
	if kind, ok := special[name]; ok {
		return &Node{Kind: kind}
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		fail("%s: %s decodes itself from JSON: add it to the special types with the kind its JSON has", path, name)
	}
	switch t.Kind() {
	case reflect.String:
		return &Node{Kind: "string"}
	case reflect.Bool:
		return &Node{Kind: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Node{Kind: "int"}
	case reflect.Float32, reflect.Float64:
		return &Node{Kind: "float"}
	case reflect.Slice, reflect.Array:
		return &Node{Kind: "list", Items: describe(t.Elem(), path+"[]", seen)}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			fail("%s: a map keyed by %s", path, t.Key())
		}
		return &Node{Kind: "map", Values: describe(t.Elem(), path+".*", seen)}
	case reflect.Struct:
		if seen[t] {
			fail("%s: %s contains itself", path, name)
		}
		seen[t] = true
		defer delete(seen, t)
		node := &Node{Kind: "object", Fields: map[string]*Node{}}
		addFields(node, t, path, seen)
		return node
	case reflect.Interface:
		return &Node{Kind: "any"}
	}
	fail("%s: no JSON kind for %s", path, t)
	return nil
}

// addFields adds the JSON fields of struct t to node, flattening inline and embedded structs.
func addFields(node *Node, t reflect.Type, path string, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+options+",", ",inline,") || (f.Anonymous && name == "")
		if inline {
			inner := f.Type
			for inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() != reflect.Struct {
				fail("%s: inline field %s is not a struct", path, f.Name)
			}
			addFields(node, inner, path, seen)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := node.Fields[name]; dup {
			fail("%s: field %s twice", path, name)
		}
		node.Fields[name] = describe(f.Type, path+"."+name, seen)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "config-fields: "+format+"\n", args...)
	os.Exit(1)
}

// moduleVersions are the versions of the two modules this binary was built with.
func moduleVersions() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fail("no build information")
	}
	for _, m := range info.Deps {
		if m.Path == "k8s.io/kubelet" || m.Path == "k8s.io/kube-proxy" {
			out[m.Path] = m.Version
		}
	}
	return out
}

func main() {
	out := map[string]any{
		"modules":   moduleVersions(),
		"kubelet":   describe(reflect.TypeOf(kubelet.KubeletConfiguration{}), "KubeletConfiguration", map[reflect.Type]bool{}),
		"kubeProxy": describe(reflect.TypeOf(kubeproxy.KubeProxyConfiguration{}), "KubeProxyConfiguration", map[reflect.Type]bool{}),
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail("%v", err)
	}
}
