package content

// The types in this file are the area files as written: what BurntSushi/toml
// decodes into. Any key that is not a field here is an error that names it,
// so a typo never silently does nothing. Validation turns these into the
// prototypes of proto.go.

// zoneFile is one areas/<zone>.toml.
type zoneFile struct {
	Zone   zoneHeader           `toml:"zone"`
	Rooms  map[string]roomSpec  `toml:"rooms"`
	Mobs   map[string]mobSpec   `toml:"mobs"`
	Items  map[string]itemSpec  `toml:"items"`
	Resets []resetSpec          `toml:"resets"`
	Quests map[string]questSpec `toml:"quests"`
}

type zoneHeader struct {
	ID           string   `toml:"id"`
	Name         string   `toml:"name"`
	Description  string   `toml:"description"`
	Credits      string   `toml:"credits"`
	Builders     []string `toml:"builders"`
	ResetSecs    int      `toml:"reset_secs"`
	StartRoom    string   `toml:"start_room"`
	Instanceable bool     `toml:"instanceable"`
	Levels       [2]int   `toml:"levels"`
}

type roomSpec struct {
	Name              string              `toml:"name"`
	Description       string              `toml:"description"`
	Environment       string              `toml:"environment"`
	Coords            []int               `toml:"coords"`
	Flags             []string            `toml:"flags"`
	Exits             map[string]string   `toml:"exits"`
	Doors             map[string]doorSpec `toml:"doors"`
	InstanceEntrances map[string]string   `toml:"instance_entrances"`
	Extra             map[string]string   `toml:"extra"`
	Script            string              `toml:"script"`
	ScriptFile        string              `toml:"script_file"`
}

type doorSpec struct {
	Keywords []string `toml:"keywords"`
	Short    string   `toml:"short"`
	Closed   bool     `toml:"closed"`
	Locked   bool     `toml:"locked"`
	Key      string   `toml:"key"`
}

type mobSpec struct {
	Keywords    []string  `toml:"keywords"`
	Short       string    `toml:"short"`
	Long        string    `toml:"long"`
	Description string    `toml:"description"`
	Level       int       `toml:"level"`
	Flags       []string  `toml:"flags"`
	HP          *Dice     `toml:"hp"`
	Damage      *Dice     `toml:"damage"`
	DamageType  string    `toml:"damage_type"`
	AttackVerb  string    `toml:"attack_verb"`
	Attacks     int       `toml:"attacks"`
	Armor       int       `toml:"armor"`
	Hitroll     int       `toml:"hitroll"`
	Dodge       int       `toml:"dodge"`
	Gold        *Dice     `toml:"gold"`
	Exp         int       `toml:"exp"`
	Abilities   []string  `toml:"abilities"`
	WanderEvery int       `toml:"wander_every"`
	Script      string    `toml:"script"`
	ScriptFile  string    `toml:"script_file"`
	Shop        *shopSpec `toml:"shop"`
}

type itemSpec struct {
	Keywords    []string          `toml:"keywords"`
	Short       string            `toml:"short"`
	Long        string            `toml:"long"`
	Description string            `toml:"description"`
	Type        string            `toml:"type"`
	Wear        string            `toml:"wear"`
	Weight      int               `toml:"weight"`
	Value       int               `toml:"value"`
	Level       int               `toml:"level"`
	Flags       []string          `toml:"flags"`
	Damage      *Dice             `toml:"damage"`
	DamageType  string            `toml:"damage_type"`
	AttackVerb  string            `toml:"attack_verb"`
	Armor       int               `toml:"armor"`
	Apply       map[string]int    `toml:"apply"`
	Capacity    int               `toml:"capacity"`
	Closeable   bool              `toml:"closeable"`
	Closed      bool              `toml:"closed"`
	Locked      bool              `toml:"locked"`
	Key         string            `toml:"key"`
	Heal        *Dice             `toml:"heal"`
	Extra       map[string]string `toml:"extra"`
	Script      string            `toml:"script"`
	ScriptFile  string            `toml:"script_file"`
}

type resetSpec struct {
	Mob      string   `toml:"mob"`
	Item     string   `toml:"item"`
	Door     string   `toml:"door"`
	Room     string   `toml:"room"`
	Max      int      `toml:"max"`
	Equip    []string `toml:"equip"`
	Give     []string `toml:"give"`
	Contents []string `toml:"contents"`
	State    string   `toml:"state"`
}

// helpFile is areas/help.toml.
type helpFile struct {
	Help []helpSpec `toml:"help"`
}

type helpSpec struct {
	Keywords []string `toml:"keywords"`
	Title    string   `toml:"title"`
	Text     string   `toml:"text"`
	Level    string   `toml:"level"`
}
