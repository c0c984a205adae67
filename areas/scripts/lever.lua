-- The foreman's office: `pull lever` raises the iron shutter to the
-- strongroom. The chain lets it drop again half a minute later; pulling
-- again while it is up starts the half minute over.

function on_command(actor, verb, args)
  if verb ~= "pull" and verb ~= "push" then
    return false
  end
  if not string.find(args, "lever", 1, true) then
    return false
  end
  if self.state.timer then
    mud.cancel(self.state.timer)
  end
  actor:send("You haul on the lever. Chains grind in the wall and the iron shutter rises.")
  mud.broadcast(self, actor:name() .. " hauls on the lever; chains grind and the iron shutter rises.")
  self:set_door("east", "open")
  self.state.timer = mud.after(120, function()
    self.state.timer = nil
    self:set_door("east", "locked")
    mud.broadcast(self, "With a rattle of chain the iron shutter slams down again.")
  end)
  return true
end
