package zone

// A utility is open to every package.
import _ "zonemud/internal/queue"
