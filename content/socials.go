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
	for _, name := range sortedKeys(f) {
		sp, key := f[name], quoteKey(name)
		for _, ft := range [][2]string{
			{"char_no_arg", sp.CharNoArg}, {"others_no_arg", sp.OthersNoArg}, {"char_found", sp.CharFound},
			{"others_found", sp.OthersFound}, {"vict_found", sp.VictFound}, {"char_auto", sp.CharAuto},
			{"others_auto", sp.OthersAuto}, {"not_found", sp.NotFound},
		} {
			l.text(SocialsFile, key+"."+ft[0], ft[1], maxShortBytes*2, false)
		}
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
