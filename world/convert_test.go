package world

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"zonemud/store"
	"zonemud/zone"
)

// The zone's records and the store's are twins, converted field by field in
// convert.go. A field added to one and not the other, or added to both and
// not converted, fails here.

// storeOnly and zoneOnly are the fields that have no twin, and why.
var (
	storeOnly = map[string]string{
		"Character.Saved": "the time of the commit, written by the store",
		"Character.Place": "the placement, which the zone keeps as Zone, Room, AnchorZone and AnchorRoom",
	}
	zoneOnly = map[string]string{
		"Character.Builder":    "a role, saved with the account and read at each login",
		"Character.BuildZones": "a role, saved with the account and read at each login",
	}
)

// fieldNames lists a struct type's fields, and those of its struct-typed
// fields' types (by their type's name), as Type.Field.
func fieldNames(t reflect.Type, seen map[string]bool) []string {
	var out []string
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t.Name()] {
		return nil
	}
	seen[t.Name()] = true
	for i := range t.NumField() {
		f := t.Field(i)
		out = append(out, t.Name()+"."+f.Name)
		out = append(out, fieldNames(f.Type, seen)...)
	}
	return out
}

// twin names a field by its twin's type names: the zone's CharRecord is
// the store's Character, ItemRecord is Item, AffectRecord is Affect.
func twin(name string) string {
	for from, to := range map[string]string{"CharRecord.": "Character.", "ItemRecord.": "Item.", "AffectRecord.": "Affect.", "CommRecord.": "Comm."} {
		if len(name) > len(from) && name[:len(from)] == from {
			return to + name[len(from):]
		}
	}
	return name
}

func TestRecords_EveryFieldHasItsTwin(t *testing.T) {
	var zoneFields []string
	for _, f := range fieldNames(reflect.TypeFor[zone.CharRecord](), map[string]bool{}) {
		zoneFields = append(zoneFields, twin(f))
	}
	storeFields := fieldNames(reflect.TypeFor[store.Character](), map[string]bool{})
	place := fieldNames(reflect.TypeFor[store.Placement](), map[string]bool{})
	for _, f := range zoneFields {
		if slices.Contains(storeFields, f) || zoneOnly[f] != "" {
			continue
		}
		if f2 := "Placement." + f[len("Character."):]; slices.Contains(place, f2) {
			continue
		}
		t.Errorf("zone record field %s has no twin in the store's records (world/convert.go)", f)
	}
	for _, f := range storeFields {
		if slices.Contains(zoneFields, f) || storeOnly[f] != "" {
			continue
		}
		if len(f) > len("Placement.") && f[:len("Placement.")] == "Placement." {
			if slices.Contains(zoneFields, "Character."+f[len("Placement."):]) {
				continue
			}
		}
		t.Errorf("store record field %s has no twin in the zone's records (world/convert.go)", f)
	}
}

// fill sets every field of v to a value of its own, distinct from the zero
// value and from the other fields', except the fields named in skip.
func fill(v reflect.Value, n *int, skip map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n, skip)
	case reflect.Struct:
		for i := range v.NumField() {
			if !skip[v.Type().Field(i).Name] {
				fill(v.Field(i), n, skip)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n, skip)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n, skip)
		fill(e, n, skip)
		v.SetMapIndex(k, e)
	case reflect.String:
		*n++
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Uint64:
		*n++
		v.SetUint(uint64(*n))
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

// A record with every field set comes back from the store's form whole.
func TestRecords_RoundTripKeepsEveryField(t *testing.T) {
	n := 0
	rec := &zone.CharRecord{}
	// Anchors are kept only inside an instance, where the zone is not: the
	// two placements are tested below. The builder role is the account's,
	// never saved with the character (zoneOnly).
	fill(reflect.ValueOf(rec).Elem(), &n, map[string]bool{"AnchorZone": true, "AnchorRoom": true, "Contents": true, "Builder": true, "BuildZones": true})
	if got := fromStore(toStore(rec)); !reflect.DeepEqual(got, rec) {
		t.Fatalf("round trip through the store's record lost something:\n got %+v\nwant %+v", got, rec)
	}
	in := &zone.CharRecord{Name: "A", Zone: zone.NewInstanceID("sunken_crypt"), Room: "sunken_crypt:room:stair", AnchorZone: "whisperwood", AnchorRoom: "whisperwood:room:barrow_mound"}
	if got := fromStore(toStore(in)); got.AnchorZone != in.AnchorZone || got.AnchorRoom != in.AnchorRoom || got.Zone != "" {
		t.Fatalf("inside an instance the store keeps the anchor, not the instance: %+v", got)
	}
}
