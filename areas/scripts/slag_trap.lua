-- The slag heaps: the ground is hollow under the crust. A player who
-- lingers has a few seconds before a heap gives way under them.

function on_enter(actor)
  if not actor:is_player() then
    return
  end
  actor:send("The crust of slag creaks under your feet.")
  mud.after(12, function()
    if actor:room() == self then
      local hurt = mud.roll("1d6+1")
      mud.broadcast(self, "A heap of slag gives way with a crunch and a gout of hot steam!")
      actor:damage(hurt)
      mud.log("slag trap caught " .. actor:name() .. " for " .. hurt)
    end
  end)
end
