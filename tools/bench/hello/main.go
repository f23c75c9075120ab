// Command hello is the reference for abcd's cold start: the smallest Go binary that prints a line.
package main

import "fmt"

func main() { fmt.Println("hello") }
