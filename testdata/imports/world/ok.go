package world

import _ "zonemud/zone"
