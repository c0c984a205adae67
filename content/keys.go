package content

import (
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"zonemud/internal/typo"
)

// keySuggestion is " (did you mean x?)" for an unknown key of a file
// decoded into v, when a key the schema has at the same place is one or
// two edits away ("descripton" for description), or "".
func keySuggestion(v any, key toml.Key) string {
	if len(key) == 0 {
		return ""
	}
	known := keysAt(reflect.TypeOf(v), key[:len(key)-1])
	if best := typo.Closest(key[len(key)-1], known, 2); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// keysAt lists the keys the schema type t has at path: through a table's
// fields by their toml names, a map's values (the path names the map's
// key) and an array of tables' elements.
func keysAt(t reflect.Type, path []string) []string {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
			continue
		}
		break
	}
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Map:
		if len(path) == 0 {
			return nil
		}
		return keysAt(t.Elem(), path[1:])
	case reflect.Struct:
		if len(path) == 0 {
			return fieldKeys(t)
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if name := fieldKey(f); name == path[0] {
				return keysAt(f.Type, path[1:])
			}
		}
	}
	return nil
}

func fieldKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("toml") == "" {
			out = append(out, keysAt(f.Type, nil)...)
			continue
		}
		if name := fieldKey(f); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// fieldKey is the toml key of a struct field, "" if it has none.
func fieldKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}
