module gotrace.test/goprog

go 1.23
