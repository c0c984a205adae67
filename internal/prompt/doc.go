// Package prompt renders a player's own prompt from the tokens they chose
// (prompt %h/%H hp %m mana %v mv %g gold %x tnl %r %e %c), as tbaMUD's
// prompt command does. It knows nothing of the game: the zone hands it a
// Source that answers each token, so what a token costs (the experience
// formula, the exits line) is paid only by prompts that name it.
//
// The rules:
//
//   - A token is % and one letter (Tokens lists them); %% is a percent
//     sign. Check refuses an unknown token, a format longer than MaxLen
//     runes, and any control character (escape codes, telnet bytes, line
//     breaks): a prompt is one line.
//   - Colour markup ({R} ... ) is the player's to use; a format that
//     holds any is closed with {x}, so colour never bleeds into the line
//     typed after it.
//   - Whatever the format, the rendered prompt ends with "> ": scripted
//     clients and tests read that as "the server waits for a command".
//     A format ending in ">" gets the space, any other gets " > " (or ">
//     " after a trailing space).
package prompt
