module matrix/wire

go 1.22
