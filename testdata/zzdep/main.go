package main

import (
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	target := os.Args[1]
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: false}
	pkgs, err := packages.Load(cfg, os.Args[2:]...)
	if err != nil {
		panic(err)
	}
	edges := map[string]map[string]bool{}
	for _, p := range pkgs {
		for id, obj := range p.TypesInfo.Uses {
			if obj.Pkg() == nil || obj.Pkg().Path() != target {
				continue
			}
			if obj.Parent() != obj.Pkg().Scope() {
				// methods / fields: attribute to receiver? skip
				if _, ok := obj.(*types.Func); !ok {
					continue
				}
				if obj.Parent() != nil {
					continue
				}
			}
			from := p.Fset.Position(id.Pos())
			to := p.Fset.Position(obj.Pos())
			fk := filepath.Base(from.Filename)
			if p.PkgPath != target {
				fk = strings.TrimPrefix(p.PkgPath, "github.com/") + ":" + fk
			}
			tk := filepath.Base(to.Filename)
			if fk == tk {
				continue
			}
			k := fk + " -> " + tk
			if edges[k] == nil {
				edges[k] = map[string]bool{}
			}
			edges[k][obj.Name()] = true
		}
	}
	var ks []string
	for k := range edges {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		var ns []string
		for n := range edges[k] {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		fmt.Println(k, ns)
	}
}
