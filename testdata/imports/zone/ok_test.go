package zone_test

// Zone tests may use the real world (testMayImport says why).
import _ "zonemud/world"
