module github.com/schedq/schedq

go 1.26.8

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738
	pgregory.net/rapid v1.3.0
)

require (
	github.com/cockroachdb/datadriven v1.0.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)
