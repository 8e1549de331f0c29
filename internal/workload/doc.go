// Package workload generates the benchmark workload of zerokube: realistic
// pods, deployments and replica sets, encoded the way kube-apiserver sends
// them, deterministically from a seed.
//
// It sits outside the data path: it feeds the two ends of it. Its bytes are
// served by fakeapiserver (or by a plain httptest server, to measure the
// client alone) and read by apiclient, watchstream and the informer in the
// benchmarks of package bench. It lives under internal/ and depends on
// meta and internal/fieldsv1 only, so that the tests of the low packages
// (meta, protodec, watchstream, apiclient) import it downward; it was
// bench/workload, a floor above everything its users test.
//
// The article's workload is the zero Config: pods of about 5 KiB (labels,
// annotations, an owner reference, managedFields from two managers,
// containers with env, resources and probes, status with conditions and
// container statuses), 1,000 deployments and 1,000 replica sets over 20
// namespaces.
//
// Invariants:
//  1. The same Config and index give the same bytes, whatever else was
//     generated and on however many goroutines.
//  2. Every field the generator writes has a field in [Pod], [Deployment]
//     and [ReplicaSet], so decoding into them decodes the whole object.
//  3. List items carry no kind or apiVersion (as in a kube-apiserver list);
//     watch-event objects carry both.
//  4. Pods grow toward Config.PodSize the way real pods grow: more env vars,
//     mirrored in managedFields. Sizes are approximate: within about 10%
//     above a shape's bare size (Config.PodSize says where that is).
package workload
