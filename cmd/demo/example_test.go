package main

import (
	"fmt"
	"time"
)

// The handler's line is the article's, byte for byte: Println puts a space
// between "Add: " and the key, hence two spaces after the colon.
func Example_articleLine() {
	at := time.Date(2023, 6, 3, 14, 19, 21, 0, time.UTC)
	fmt.Print(articleLine(at, "Add", "default/example-fcsjwbzzf2"))
	fmt.Print(articleLine(at.Add(time.Minute), "Update", "default/example-fcsjwbzzf2"))
	fmt.Println(at.Format("2006-01-02 15:04:05"), "Delete: ", "default/example-fcsjwbzzf2") // the article's own call
	// Output:
	// 2023-06-03 14:19:21 Add:  default/example-fcsjwbzzf2
	// 2023-06-03 14:20:21 Update:  default/example-fcsjwbzzf2
	// 2023-06-03 14:19:21 Delete:  default/example-fcsjwbzzf2
}
