-- Sister Maelis greets those who come to the Hearth, and answers questions
-- about it. She greets each visitor once a minute at most.

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
  if string.find(t, "hearth", 1, true) or string.find(t, "stones", 1, true) then
    self:emote("looks at the grey stones at the Hearth's edge.")
    self:say("Since the barrow was broken, the Hearth cools a little every night. Something of Berrick's was taken.")
  end
end

-- A clock in seconds, for the greeting memory.
function on_tick()
  self.state.clock = (self.state.clock or 0) + 1
end
