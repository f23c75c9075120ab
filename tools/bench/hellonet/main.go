// Command hellonet is the second reference for abcd's cold start: the hello-world, linking what any
// abcd must link for its transports (net/http with crypto/tls) and running none of it, so the page
// can tell the cost of linking them from the cost of abcd's own start.
package main

import (
	"fmt"

	_ "crypto/tls"
	_ "net/http"
)

func main() { fmt.Println("hello") }
