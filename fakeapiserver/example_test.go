package fakeapiserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Close()

	// Seed state through the Go API; HTTP clients see the same objects.
	pods := meta.GVR{Version: "v1", Resource: "pods"}
	if _, err := srv.Create(pods, `{"metadata":{"name":"web","namespace":"default"},"spec":{"containers":[{"name":"c"}]}}`); err != nil {
		panic(err)
	}

	resp, err := http.Get(srv.URL() + "/api/v1/namespaces/default/pods")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var list struct {
		Kind  string `json:"kind"`
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s (item kind %q)\n", list.Kind, list.Items[0].Metadata.Name, list.Items[0].Kind)
	// Output: PodList: web (item kind "")
}
