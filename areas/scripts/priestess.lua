-- Sister Maelis greets those who come to the Hearth, and answers questions
-- about it. She greets each visitor once a minute at most. Speak to her of
-- the barrow and she gives you the temple's job (the barrow quest, which
-- the notice board in the square offers too), or asks how it goes.

function on_spawn()
  self.state.greeted = {}
end

function on_greet(actor)
  local name = actor:name()
  local last = self.state.greeted[name]
  local now = self.state.clock or 0
  if last and now - last < 15 then
    return
  end
  self.state.greeted[name] = now
  local lines = {
    "The Hearth will keep you, child. Rest, then go carefully.",
    "Welcome, " .. name .. ". Warm your hands; the wood is cold this year.",
    "Peace on you, " .. name .. ". Mind the grey stones; they were red once.",
  }
  self:say(lines[mud.random(1, #lines)])
end

function on_speech(actor, text)
  local t = string.lower(text)
  if string.find(t, "barrow", 1, true) then
    local state = mud.quest_state(actor, "barrow")
    if state == "done" then
      self:say("Berrick sleeps again, and the Hearth is warm. The temple will not forget it, " .. actor:name() .. ".")
    elseif state == "active" then
      self:say("North through the Whisperwood, past the hermit's clearing, and down. Do not go alone.")
    else
      local ok, why = mud.quest_start(actor, "barrow")
      if ok then
        self:say("Then go with the Hearth's blessing, and lay him to rest.")
      else
        self:say("Not yet, child. The barrow would keep you.")
        actor:send(why)
      end
    end
    return
  end
  if string.find(t, "hearth", 1, true) or string.find(t, "stones", 1, true) then
    self:emote("looks at the grey stones at the Hearth's edge.")
    self:say("Since the barrow was broken, the Hearth cools a little every night. Something of Berrick's was taken.")
  end
end

-- A clock in seconds, for the greeting memory.
function on_tick()
  self.state.clock = (self.state.clock or 0) + 1
end
