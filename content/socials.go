package content

import (
	"zonemud/content/social"
)

// socialsFile is the socials file: one table per social, under its name.
type socialsFile map[string]social.Spec

// loadSocials reads the socials file, if the areas root has one, into the
// set's table. A world without the file has no socials.
func (l *loader) loadSocials(have bool) bool {
	if !have {
		return true
	}
	var f socialsFile
	if !l.decode(SocialsFile, &f) {
		return false
	}
	t, probs := social.New(f)
	for _, p := range probs {
		key := quoteKey(p.Social)
		if p.Key != "" {
			key += "." + p.Key
		}
		l.problem(SocialsFile, key, "%s", p.Msg)
	}
	l.set.Socials = t
	return true
}
