module github.com/schedq/schedq

go 1.26.8

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/cockroachdb/datadriven v1.0.3
	github.com/google/go-cmp v0.7.0
	github.com/prometheus/client_golang v1.22.0
	go.uber.org/goleak v1.3.0
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738
	pgregory.net/rapid v1.3.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/prometheus/client_model v0.6.1 // indirect
	github.com/prometheus/common v0.62.0 // indirect
	github.com/prometheus/procfs v0.15.1 // indirect
	golang.org/x/sys v0.30.0 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
)
