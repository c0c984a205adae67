package gate

import (
	_ "fmt"

	_ "zonemud/net/telnet"
	_ "zonemud/world"
)
