package circle

import (
	"errors"
	"strconv"
)

func errAs(err error, target any) bool { return errors.As(err, target) }

func itoa(i int) string { return strconv.Itoa(i) }
