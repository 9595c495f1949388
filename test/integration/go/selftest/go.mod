module selftest

go 1.23
