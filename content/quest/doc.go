// Package quest is one character's quests: which are under way and how far,
// which are done, and how an event in the game moves them on. It holds the
// rules and no game state: the zone owns a Log per player, reports events
// to it, and gives the rewards a finished quest names.
//
// Steps are done in order: only the step a quest is at hears events. A
// kill, visit, talk or give step counts matching events up to its count;
// a fetch step is done while the character carries that many of the item,
// checked when it picks one up and whenever the quest comes to the step.
//
// Nothing here runs a goroutine; a Log is owned by whoever holds it (the
// zone goroutine of the player's zone). It imports only content: it must
// not import zone, world or anything that runs the game.
package quest
