// An outside module that checks its own queue with the conformance suite,
// as a queue author's module does. The replace points at this repository;
// in your module, `go get github.com/schedq/schedq@latest` instead.
module example.com/myqueue

go 1.26.8

require (
	github.com/schedq/schedq v0.0.0
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738
)

require (
	github.com/cockroachdb/datadriven v1.0.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/schedq/schedq => ../../..
