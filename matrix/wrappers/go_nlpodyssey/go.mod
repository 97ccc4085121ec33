module matrix/nlpodyssey-st

go 1.22

require github.com/nlpodyssey/safetensors v0.0.0-20250209183917-bfb01cc25f7c

require matrix/wire v0.0.0

replace matrix/wire => ../_gowire
