(import harness [monitor])
(monitor '(.25) '(10 50) '(titfortat))
