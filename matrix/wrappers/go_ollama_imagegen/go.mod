module matrix/ollama-imagegen-st

go 1.24.1

require github.com/ollama/ollama v0.17.4

require matrix/wire v0.0.0

replace matrix/wire => ../_gowire
