// todo: stuff from mod that is init related should live here
