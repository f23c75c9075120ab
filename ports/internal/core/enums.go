package core

import (
	"github.com/abcd-dev/abcd/domain/config"
)

func Strs[T ~string](v ...T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

func LayerNames(ls ...config.Layer) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}
