// Package docstest runs every ```console block of README.md and docs/*.md
// against a freshly built catchup binary and checks that each command prints
// what the block shows. It has no code of its own: the conventions a block
// follows are described at the top of docs_test.go.
package docstest
