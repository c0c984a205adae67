package zone

// commTable is the commands of talking to other players beyond say and
// tell: socials, channels, ignore, afk, aliases and mail. They come after
// every other command, so none of them takes an abbreviation an older
// command had.
var commTable = []command{
	{name: "socials", fn: (*Zone).cmdSocials, usage: socialsUsage},
	{name: "channels", fn: (*Zone).cmdChannels, usage: channelsUsage},
	{name: "ignore", fn: (*Zone).cmdIgnore, usage: ignoreUsage},
	{name: "afk", fn: (*Zone).cmdAFK, usage: afkUsage},
	{name: "alias", fn: (*Zone).cmdAlias, usage: aliasUsage},
	{name: "unalias", fn: (*Zone).cmdUnalias, usage: unaliasUsage},
	{name: "mail", fn: (*Zone).cmdMail, async: true, usage: mailUsage},
}
