#3000
Tower greeting~
2 g 100
~
wsend %actor% The wind howls through the arrow slits.
~
#3001
Guard speech~
0 d 100
hello~
say Move along.
~
$
