package world

// No allowance lets a world test reach up into the gate.
import _ "zonemud/net/gate"
